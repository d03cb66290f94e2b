//! inter: see lib.rs for the pipeline.
