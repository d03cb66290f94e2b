//! emit: see lib.rs for the pipeline.
