// RUN: kgen-opt %s --kgen-mis-named
