// RUN: kgen-opt %s --kgen-moved
