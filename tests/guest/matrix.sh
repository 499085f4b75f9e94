#!/bin/bash
# Runs matrix.py as the unprivileged user (see there).
. "$(dirname "$0")/lib.sh"
as_user python3 "$SGF_TOP/tests/guest/matrix.py" || exit 1
