//! Network clients for a machine with networking disabled.
//!
//! Upstream's tasks ran in Docker with the network up; the sandbox has none, so these applets
//! answer the way the same Ubuntu 22.04 tools answer under `docker run --network none`: only
//! the loopback interface exists (nothing listens on it), there is no route anywhere else, and
//! the name server in `/etc/resolv.conf` cannot be reached. Names still resolve from
//! `/etc/hosts`, which is how `ping localhost` or `getent hosts 127.0.0.1` keep working.
//! [`world`] holds those facts; each tool module only formats them in its own words.

pub mod curl;
pub mod dns;
pub mod getent;
pub mod ping;
pub mod world;
