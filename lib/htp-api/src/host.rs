//! Host functions: entry points of the process that code a target compiles
//! for the host may call by name (a model's runtime: a CSP channel's send
//! and receive). A target that JIT-compiles code into this process
//! (`cpu`) makes every registered function visible to it; nothing else
//! needs to know who registered them.

use std::sync::RwLock;

/// One function: its symbol in compiled code and its address.
#[derive(Clone, Copy, Debug)]
pub struct HostFunction {
    pub name: &'static str,
    pub address: usize,
}

static FUNCTIONS: RwLock<Vec<HostFunction>> = RwLock::new(Vec::new());

/// Registers `function`. The same name at the same address again is a
/// no-op; the name at another address is an error.
pub fn register_host_function(function: HostFunction) -> Result<(), String> {
    let mut functions = FUNCTIONS.write().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(existing) = functions.iter().find(|f| f.name == function.name) {
        return if existing.address == function.address { Ok(()) } else { Err(format!("two host functions claim the symbol '{}'", function.name)) };
    }
    functions.push(function);
    Ok(())
}

/// Every registered host function.
pub fn host_functions() -> Vec<HostFunction> {
    FUNCTIONS.read().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symbol_has_one_address() {
        let name = "htpHostTestSymbol";
        register_host_function(HostFunction { name, address: 16 }).unwrap();
        register_host_function(HostFunction { name, address: 16 }).unwrap();
        assert!(register_host_function(HostFunction { name, address: 32 }).unwrap_err().contains(name));
        assert_eq!(host_functions().iter().filter(|f| f.name == name).count(), 1);
    }
}
