// RUN: kgen-opt %s --kgen-greedy
