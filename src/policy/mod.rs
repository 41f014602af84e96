//! Built-in policies, one module each.

pub mod approval;
pub mod question;
pub mod timeout;
pub mod waiting;
