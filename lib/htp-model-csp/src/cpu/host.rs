//! The network's entry points that process code calls (`outline.rs`
//! declares them): `htpCspSend(net, channel, address)` and
//! `htpCspRecv(net, channel, address)`, the address a buffer of the
//! channel's element size. When the network stopped (a deadlock, Ctrl-C)
//! they return at once and the process runs to its end without waiting;
//! the layer reports why (`runner.rs`).

use htp_runtime::csp::Network;

unsafe extern "C" fn send(network: i64, channel: i64, source: i64) {
    // Safe: the layer passes a network that outlives every process thread.
    if let Some(network) = unsafe { (network as *const Network).as_ref() } {
        let _ = unsafe { network.send(channel as usize, source as *const u8) };
    }
}

unsafe extern "C" fn recv(network: i64, channel: i64, dest: i64) {
    if let Some(network) = unsafe { (network as *const Network).as_ref() } {
        let _ = unsafe { network.recv(channel as usize, dest as *mut u8) };
    }
}

/// Makes both visible to JIT-compiled code.
pub fn register() -> Result<(), String> {
    use htp_api::host::{register_host_function, HostFunction};
    let send: unsafe extern "C" fn(i64, i64, i64) = send;
    let recv: unsafe extern "C" fn(i64, i64, i64) = recv;
    register_host_function(HostFunction { name: super::outline::SEND, address: send as usize })?;
    register_host_function(HostFunction { name: super::outline::RECV, address: recv as usize })
}
