//! Tool discovery: finding the few tools a request needs among hundreds.
//!
//! [`rank`] is the search index behind `search_tools`: pure, offline, built once per tool set.

pub mod rank;
