//! Timestamps: strptime/strftime with Splunk's letters, automatic recognition, relative time modifiers.
