//! Plays a program's protocol as tokens over its channels' depths: every
//! instance runs as far as its channels let it, until all finish (proven)
//! or none can move (the blocked instances, and the cycle of waits among
//! them, are the diagnostic).

use super::eval::{self, Event, Inputs, Unplayable};
use super::{Op, Protocol};

/// An instance stopped at a channel operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocked {
    /// (process, replica).
    pub instance: (usize, usize),
    /// The flat channel.
    pub channel: usize,
    pub send: bool,
    pub site: usize,
    /// Elements in the channel when it blocked.
    pub held: usize,
}

/// What is wrong with a protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// Two instances send on (or receive from) one channel.
    SharedEnd { channel: usize, send: bool, first: (usize, usize), second: (usize, usize), site: usize },
    /// A channel's sends and receives differ in number.
    Unbalanced { channel: usize, sent: usize, received: usize, send_site: Option<usize>, recv_site: Option<usize> },
    /// Every unfinished instance waits; `cycle` is a loop of waits among them
    /// (each waits for the next one's end of its channel).
    Deadlock { blocked: Vec<Blocked>, cycle: Vec<Blocked> },
    /// Control around channel operations that depends on tensor data, or an index outside its array.
    Unplayable(Unplayable),
}

/// What the check concluded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every instance finishes and every channel ends empty; per flat
    /// channel, how many elements pass through it.
    Proven { elements: Vec<usize> },
    /// Bounds or indices are known only at the call.
    Later,
    /// More channel operations than one play goes through.
    TooLong,
}

/// Checks `protocol` on `inputs`.
pub fn check(protocol: &Protocol, inputs: &Inputs) -> Result<Outcome, Problem> {
    let instances = protocol.instances();
    let mut traces = Vec::new();
    let mut later = false;
    let mut too_long = false;
    for &(process, replica) in &instances {
        match eval::play(protocol, inputs, process, replica) {
            Ok(events) => traces.push(events),
            Err(Unplayable::Later) => later = true,
            Err(Unplayable::TooLong) => too_long = true,
            Err(other) => return Err(Problem::Unplayable(other)),
        }
    }
    if later {
        return Ok(Outcome::Later);
    }
    if too_long {
        return Ok(Outcome::TooLong);
    }
    let flat = protocol.flat_channels();
    ends(&instances, &traces, flat)?;
    balance(&traces, flat)?;
    play_tokens(protocol, &instances, &traces)
}

/// One sending and one receiving instance per flat channel.
fn ends(instances: &[(usize, usize)], traces: &[Vec<Event>], flat: usize) -> Result<(), Problem> {
    let mut senders: Vec<Option<usize>> = vec![None; flat];
    let mut receivers: Vec<Option<usize>> = vec![None; flat];
    for (i, trace) in traces.iter().enumerate() {
        for event in trace {
            let end = if event.op.sends() { &mut senders[event.channel] } else { &mut receivers[event.channel] };
            match *end {
                Some(other) if other != i => {
                    return Err(Problem::SharedEnd { channel: event.channel, send: event.op.sends(), first: instances[other], second: instances[i], site: event.site })
                }
                _ => *end = Some(i),
            }
        }
    }
    Ok(())
}

/// As many receives as sends on every flat channel.
fn balance(traces: &[Vec<Event>], flat: usize) -> Result<(), Problem> {
    let mut sent = vec![0usize; flat];
    let mut received = vec![0usize; flat];
    let mut send_site = vec![None; flat];
    let mut recv_site = vec![None; flat];
    for event in traces.iter().flatten() {
        match event.op {
            Op::Send => {
                sent[event.channel] += 1;
                send_site[event.channel].get_or_insert(event.site);
            }
            Op::Recv | Op::Acquire => {
                received[event.channel] += 1;
                recv_site[event.channel].get_or_insert(event.site);
            }
            Op::Release => {}
        }
    }
    match (0..flat).find(|&c| sent[c] != received[c]) {
        Some(channel) => Err(Problem::Unbalanced { channel, sent: sent[channel], received: received[channel], send_site: send_site[channel], recv_site: recv_site[channel] }),
        None => Ok(()),
    }
}

/// The greedy play (exact for one sender and one receiver per channel: an
/// op able to go ahead stays able to until its process takes it). Per
/// channel, `held` slots are taken (sent, not yet freed) and `ready`
/// elements wait to be received.
fn play_tokens(protocol: &Protocol, instances: &[(usize, usize)], traces: &[Vec<Event>]) -> Result<Outcome, Problem> {
    let flat = protocol.flat_channels();
    let depth: Vec<usize> = (0..flat).map(|c| protocol.channel_of(c).map_or(1, |d| d.depth.max(1))).collect();
    let mut held = vec![0usize; flat];
    let mut ready = vec![0usize; flat];
    let mut elements = vec![0usize; flat];
    let mut cursor = vec![0usize; traces.len()];
    loop {
        let mut moved = false;
        for (i, trace) in traces.iter().enumerate() {
            while let Some(event) = trace.get(cursor[i]) {
                let c = event.channel;
                match event.op {
                    Op::Send if held[c] < depth[c] => {
                        held[c] += 1;
                        ready[c] += 1;
                        elements[c] += 1;
                    }
                    Op::Recv if ready[c] > 0 => {
                        ready[c] -= 1;
                        held[c] -= 1;
                    }
                    Op::Acquire if ready[c] > 0 => ready[c] -= 1,
                    Op::Release => held[c] = held[c].saturating_sub(1),
                    _ => break,
                }
                cursor[i] += 1;
                moved = true;
            }
        }
        if cursor.iter().zip(traces).all(|(&at, trace)| at == trace.len()) {
            return Ok(Outcome::Proven { elements });
        }
        if !moved {
            break;
        }
    }
    let blocked: Vec<Blocked> = traces
        .iter()
        .enumerate()
        .filter_map(|(i, trace)| trace.get(cursor[i]).map(|e| Blocked { instance: instances[i], channel: e.channel, send: e.op.sends(), site: e.site, held: held[e.channel] }))
        .collect();
    Err(Problem::Deadlock { cycle: cycle(&blocked, traces, instances), blocked })
}

/// A loop of waits: each blocked instance waits for the instance at the
/// other end of its channel.
fn cycle(blocked: &[Blocked], traces: &[Vec<Event>], instances: &[(usize, usize)]) -> Vec<Blocked> {
    let other_end = |b: &Blocked| -> Option<(usize, usize)> {
        traces.iter().enumerate().find(|(_, t)| t.iter().any(|e| e.channel == b.channel && e.op.sends() != b.send)).map(|(i, _)| instances[i])
    };
    let Some(mut at) = blocked.first() else { return vec![] };
    let mut path: Vec<&Blocked> = Vec::new();
    loop {
        if let Some(start) = path.iter().position(|p| p.instance == at.instance) {
            return path[start..].iter().map(|b| (*b).clone()).collect();
        }
        path.push(at);
        let Some(next) = other_end(at).and_then(|instance| blocked.iter().find(|b| b.instance == instance)) else {
            return path.into_iter().cloned().collect();
        };
        at = next;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Channel, Expr, Op, Process, Stmt};
    use super::*;

    /// `n` sends (or receives) on channel `channel` in a loop.
    fn repeat(first_reg: usize, n: i64, channel: usize, send: bool) -> Vec<Stmt> {
        let (lo, hi, step, iv) = (first_reg, first_reg + 1, first_reg + 2, first_reg + 3);
        vec![
            Stmt::Let(lo, Expr::Const(0)),
            Stmt::Let(hi, Expr::Const(n)),
            Stmt::Let(step, Expr::Const(1)),
            Stmt::For { iv, lower: lo, upper: hi, step, carried: vec![], yields: vec![], results: vec![], body: vec![Stmt::Event { channel, index: None, op: if send { Op::Send } else { Op::Recv }, site: 0 }], site: 0 },
        ]
    }

    fn protocol(depths: &[usize], processes: Vec<Vec<Stmt>>) -> Protocol {
        Protocol {
            channels: depths.iter().enumerate().map(|(i, &depth)| Channel { name: format!("c{i}"), depth, count: 1, bytes: 4, rows: 1, cols: 1, site: 0 }).collect(),
            processes: processes.into_iter().enumerate().map(|(i, body)| Process { name: format!("p{i}"), replicas: 1, body, site: 0 }).collect(),
            registers: 64,
            sites: vec!["here".into()],
        }
    }

    #[test]
    fn a_pipeline_is_proven_at_depth_one() {
        let p = protocol(&[1], vec![repeat(0, 10, 0, true), repeat(8, 10, 0, false)]);
        assert_eq!(check(&p, &Inputs::default()), Ok(Outcome::Proven { elements: vec![10] }));
    }

    #[test]
    fn sending_both_before_receiving_deadlocks_only_at_depth_one() {
        // p0: send a, send a, recv b;  p1: send b, send b, recv a, recv a... at depth 1 both block sending.
        let sender = |out: usize, inp: usize, reg: usize| {
            let mut body = repeat(reg, 2, out, true);
            body.extend(repeat(reg + 4, 2, inp, false));
            body
        };
        let p = protocol(&[1, 1], vec![sender(0, 1, 0), sender(1, 0, 10)]);
        let Err(Problem::Deadlock { cycle, .. }) = check(&p, &Inputs::default()) else { panic!("no deadlock found") };
        assert_eq!(cycle.len(), 2);
        let p = protocol(&[2, 2], vec![sender(0, 1, 0), sender(1, 0, 10)]);
        assert!(matches!(check(&p, &Inputs::default()), Ok(Outcome::Proven { .. })));
    }

    #[test]
    fn a_consume_holds_its_slot_while_its_body_runs() {
        let event = |channel: usize, op: Op| Stmt::Event { channel, index: None, op, site: 0 };
        // a: two consumes of c0, each sending twice on c1 (depth 1) inside;
        // b: two sends on c0 (depth 1), then four receives from c1.
        let holding = |op_start: Op, op_end: Option<Op>| {
            let mut body = vec![];
            for _ in 0..2 {
                body.push(event(0, op_start));
                body.push(event(1, Op::Send));
                body.push(event(1, Op::Send));
                body.extend(op_end.map(|op| event(0, op)));
            }
            body
        };
        let b = vec![event(0, Op::Send), event(0, Op::Send), event(1, Op::Recv), event(1, Op::Recv), event(1, Op::Recv), event(1, Op::Recv)];
        // Received at once, the first slot is free for b's second send: fine.
        let p = protocol(&[1, 1], vec![holding(Op::Recv, None), b.clone()]);
        assert!(matches!(check(&p, &Inputs::default()), Ok(Outcome::Proven { .. })));
        // Held while a's body blocks on c1, b cannot send its second: a deadlock.
        let p = protocol(&[1, 1], vec![holding(Op::Acquire, Some(Op::Release)), b]);
        assert!(matches!(check(&p, &Inputs::default()), Err(Problem::Deadlock { .. })));
    }

    #[test]
    fn more_sends_than_receives_is_unbalanced() {
        let p = protocol(&[4], vec![repeat(0, 3, 0, true), repeat(8, 2, 0, false)]);
        assert!(matches!(check(&p, &Inputs::default()), Err(Problem::Unbalanced { sent: 3, received: 2, .. })));
    }

    #[test]
    fn a_bound_known_only_at_the_call_waits_for_it() {
        let mut body = repeat(0, 1, 0, true);
        body[1] = Stmt::Let(1, Expr::Dim(0, 0));
        let p = protocol(&[1], vec![body, repeat(8, 1, 0, false)]);
        assert_eq!(check(&p, &Inputs::default()), Ok(Outcome::Later));
        let inputs = Inputs { scalars: vec![None], dims: vec![vec![Some(1), Some(4)]] };
        assert!(matches!(check(&p, &inputs), Ok(Outcome::Proven { .. })));
    }
}
