/* SPDX-License-Identifier: Apache-2.0 */
/* Prints the thread count poolgrad uses, for the POOLGRAD_NUM_THREADS tests. */
#include <stdio.h>

#include "poolgrad/poolgrad.h"

int main(void) {
  printf("threads=%d\n", poolgradGetNumThreads());
  printf("again=%d\n", poolgradGetNumThreads());
  return 0;
}
