//! Splunk-style .conf files: stanzas, keys, layering of default and local.
