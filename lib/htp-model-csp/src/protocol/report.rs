//! A protocol problem in the user's words: where it is (a site) and what
//! happens there, with the file:line:col of every other op it involves.

use super::eval::Unplayable;
use super::simulate::{Blocked, Problem};
use super::Protocol;

/// The site a problem is reported at, and its message.
pub fn describe(protocol: &Protocol, problem: &Problem) -> (usize, String) {
    let at = |site: usize| protocol.sites.get(site).cloned().unwrap_or_else(|| "<unknown>".into());
    match problem {
        Problem::SharedEnd { channel, send, first, second, site } => (
            *site,
            format!(
                "{} {} channel '{}', as {} does: a channel has one sending and one receiving process \
                 (give each replica its own channel: csp.channel(..., count=n) and at=)",
                protocol.instance_name(*second),
                if *send { "sends on" } else { "receives from" },
                protocol.flat_name(*channel),
                protocol.instance_name(*first)
            ),
        ),
        Problem::Unbalanced { channel, sent, received, send_site, recv_site } if sent > received => (
            send_site.unwrap_or(0),
            format!(
                "unbalanced protocol: channel '{}' is sent {} here but received {}{}: {} would never be received",
                protocol.flat_name(*channel),
                count(*sent, "tile"),
                count(*received, "time"),
                recv_site.map(|s| format!(" (at {})", at(s))).unwrap_or_default(),
                count(sent - received, "tile")
            ),
        ),
        Problem::Unbalanced { channel, sent, received, send_site, recv_site } => (
            recv_site.unwrap_or(0),
            format!(
                "unbalanced protocol: channel '{}' is received {} here but sent only {}{}: the receiver would wait forever",
                protocol.flat_name(*channel),
                count(*received, "time"),
                count(*sent, "tile"),
                send_site.map(|s| format!(" (at {})", at(s))).unwrap_or_default()
            ),
        ),
        Problem::Deadlock { blocked, cycle } => {
            let waits = if cycle.is_empty() { blocked } else { cycle };
            let lines: Vec<String> = waits.iter().map(|b| format!("  {} at {}", wait(protocol, b), at(b.site))).collect();
            (
                waits.first().map_or(0, |b| b.site),
                format!(
                    "deadlock: with the channels' depths, these processes wait for each other forever:\n{}\n\
                     (deepen a channel, or reorder the sends and receives)",
                    lines.join("\n")
                ),
            )
        }
        Problem::Unplayable(Unplayable::Index { site, index, count, name }) => (*site, format!("at={index} is outside the {count} channels of '{name}'")),
        Problem::Unplayable(Unplayable::Data { site, why }) => (
            *site,
            format!("{why}: a CSP program's channel operations must be fixed by shapes, scalars and loop indices, so that it can be proven free of deadlock (docs/csp.md)"),
        ),
        Problem::Unplayable(other) => (0, format!("the protocol cannot be played: {other:?}")),
    }
}

/// "1 tile", "3 tiles".
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// "process 'p' waits to send on 'a' (2 of 2 held)".
fn wait(protocol: &Protocol, blocked: &Blocked) -> String {
    let depth = protocol.channel_of(blocked.channel).map_or(1, |c| c.depth);
    format!(
        "{} waits to {} '{}' ({} of {depth} held)",
        protocol.instance_name(blocked.instance),
        if blocked.send { "send on" } else { "receive from" },
        protocol.flat_name(blocked.channel),
        blocked.held
    )
}
