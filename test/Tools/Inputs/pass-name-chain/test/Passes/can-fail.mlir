// RUN: kgen-opt %s --kgen-can-fail
