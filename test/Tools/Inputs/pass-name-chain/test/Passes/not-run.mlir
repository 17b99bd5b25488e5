// RUN: kgen-opt %s --kgen-not-run-at-all
