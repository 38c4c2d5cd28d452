/* poolgrad's own (non-CANN) controls. */
#ifndef POOLGRAD_POOLGRAD_H_
#define POOLGRAD_POOLGRAD_H_

#include "../acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Sets the number of threads the kernels use (n >= 1); n <= 0 restores the default
 * (POOLGRAD_NUM_THREADS, else all cores). Results are bitwise identical for any count. */
ACL_FUNC_VISIBILITY void poolgradSetNumThreads(int n);
/** The number of threads the kernels use. */
ACL_FUNC_VISIBILITY int poolgradGetNumThreads(void);
/** poolgrad's version string. */
ACL_FUNC_VISIBILITY const char *poolgradVersion(void);

#ifdef __cplusplus
}
#endif

#endif
