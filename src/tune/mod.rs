//! The search of a plan's `[tune]` section, which `jload run` runs (`run::tune`, docs/tune.md): a JVM flag space
//! searched under an SLO in a dozen or two trials instead of a grid. This folder holds the search itself, free of
//! processes and HTTP: the space and its encoding (`space`), space-filling starts (`design`), the Gaussian-process
//! model (`gp`), the search that proposes the next trial (`search`) and which parameters mattered (`importance`).

pub mod design;
pub mod gp;
pub mod importance;
pub mod search;
pub mod space;
