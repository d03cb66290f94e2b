//! lang: which language a driver speaks. `mpd`/`mpdl`/`mpdm` and `sr`/`srl`/`srm`
//! are the same code; the language gives the command names, the source suffix,
//! the interface directory and the words of the messages.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lang {
    #[default]
    Mpd,
    Sr,
}

impl Lang {
    /// The compiler's name: `mpd` or `sr` (also the prefix of its messages).
    pub fn compiler(self) -> &'static str {
        match self {
            Lang::Mpd => "mpd",
            Lang::Sr => "sr",
        }
    }
    /// The linker's name.
    pub fn linker(self) -> &'static str {
        match self {
            Lang::Mpd => "mpdl",
            Lang::Sr => "srl",
        }
    }
    /// Suffix of source files.
    pub fn suffix(self) -> &'static str {
        match self {
            Lang::Mpd => ".mpd",
            Lang::Sr => ".sr",
        }
    }
    /// The directory of specs and objects between compiler and linker runs.
    pub fn inter_dir(self) -> &'static str {
        match self {
            Lang::Mpd => "MPDinter",
            Lang::Sr => "Interfaces",
        }
    }
    /// The variable of colon-separated directories searched for components.
    pub fn path_var(self) -> &'static str {
        match self {
            Lang::Mpd => "MPD_PATH",
            Lang::Sr => "SR_PATH",
        }
    }
    /// The makefile generator's name.
    pub fn maker(self) -> &'static str {
        match self {
            Lang::Mpd => "mpdm",
            Lang::Sr => "srm",
        }
    }
    /// The language's name in capitals: makefile variables (`$(SR) $(SRFLAGS)`).
    pub fn upper(self) -> &'static str {
        match self {
            Lang::Mpd => "MPD",
            Lang::Sr => "SR",
        }
    }
}
