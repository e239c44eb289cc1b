//! The network's entry points that process code calls (`outline.rs`
//! declares them): a send is `htpCspAcquireSend(net, channel)` (the slot
//! of the channel's ring the tile is stored into, in place), the store,
//! then `htpCspReleaseSend(net, channel, slot)`; a receive is
//! `htpCspRecv(net, channel, address)`, copying the element into a buffer
//! of the process's own; a consume reads its slot in place between
//! `htpCspAcquireRecv(net, channel)` and `htpCspReleaseRecv(net, channel, slot)`. When the network stopped (a deadlock, Ctrl-C) they
//! return at once — the slot -1, whose store the bounds check skips — and
//! the process runs to its end without waiting; the layer reports why
//! (`runner.rs`).

use htp_runtime::csp::Network;

unsafe extern "C" fn acquire_send(network: i64, channel: i64) -> i64 {
    // Safe: the layer passes a network that outlives every process thread.
    match unsafe { (network as *const Network).as_ref() } {
        Some(network) => network.acquire_send(channel as usize).map_or(-1, |slot| slot as i64),
        None => -1,
    }
}

/// `slot` is what `acquire_send` returned: -1 (the network stopped) sends nothing.
unsafe extern "C" fn release_send(network: i64, channel: i64, slot: i64) {
    if let Some(network) = unsafe { (network as *const Network).as_ref() }.filter(|_| slot >= 0) {
        network.release_send(channel as usize);
    }
}

unsafe extern "C" fn acquire_recv(network: i64, channel: i64) -> i64 {
    match unsafe { (network as *const Network).as_ref() } {
        Some(network) => network.acquire_recv(channel as usize).map_or(-1, |slot| slot as i64),
        None => -1,
    }
}

/// `slot` is what `acquire_recv` returned: -1 (the network stopped) gives nothing back.
unsafe extern "C" fn release_recv(network: i64, channel: i64, slot: i64) {
    if let Some(network) = unsafe { (network as *const Network).as_ref() }.filter(|_| slot >= 0) {
        network.release_recv(channel as usize);
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
    let acquire: unsafe extern "C" fn(i64, i64) -> i64 = acquire_send;
    let release: unsafe extern "C" fn(i64, i64, i64) = release_send;
    let recv: unsafe extern "C" fn(i64, i64, i64) = recv;
    register_host_function(HostFunction { name: super::outline::ACQUIRE_SEND, address: acquire as usize })?;
    register_host_function(HostFunction { name: super::outline::RELEASE_SEND, address: release as usize })?;
    let acquire_recv: unsafe extern "C" fn(i64, i64) -> i64 = acquire_recv;
    let release_recv: unsafe extern "C" fn(i64, i64, i64) = release_recv;
    register_host_function(HostFunction { name: super::outline::ACQUIRE_RECV, address: acquire_recv as usize })?;
    register_host_function(HostFunction { name: super::outline::RELEASE_RECV, address: release_recv as usize })?;
    register_host_function(HostFunction { name: super::outline::RECV, address: recv as usize })
}
