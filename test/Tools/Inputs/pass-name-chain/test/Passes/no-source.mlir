// RUN: kgen-opt %s --kgen-no-source
