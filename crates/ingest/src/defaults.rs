//! The shipped default configuration (`default/props.conf`, `default/transforms.conf`), embedded
//! in the binary; the CLI writes them to `$LODE_HOME/etc/system/default/`.

/// Shipped props.conf: Splunk's `[default]` values and the built-in sourcetypes.
pub const DEFAULT_PROPS: &str = include_str!("../default/props.conf");

/// Shipped transforms.conf, referenced by the built-in sourcetypes.
pub const DEFAULT_TRANSFORMS: &str = include_str!("../default/transforms.conf");
