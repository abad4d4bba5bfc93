#!/bin/bash
# Slurm 26.05 (Debian testing) harness: the shared script of ../slurm-24.11/ with COLOCATE_SLURM_SERIES=26.05, which
# selects 26.05's root, ports, SLURM_DIR and packages (../slurm-24.11/series.sh). See README.md here.
COLOCATE_SLURM_SERIES=26.05 exec bash "$(dirname "${BASH_SOURCE[0]}")/../slurm-24.11/${BASH_SOURCE[0]##*/}" "$@"
