//! syntax: see lib.rs for the pipeline.
