//! ptc
