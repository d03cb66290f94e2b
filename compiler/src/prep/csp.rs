//! csp2sr: CSP in SR (see csp2sr_main).
