//! check: see lib.rs for the pipeline.
