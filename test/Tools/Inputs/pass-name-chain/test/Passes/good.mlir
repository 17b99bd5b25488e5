// RUN: kgen-opt %s --kgen-good
