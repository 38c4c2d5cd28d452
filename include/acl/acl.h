/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad: CANN-compatible entry header (acl/acl.h). */
#ifndef POOLGRAD_ACL_ACL_H_
#define POOLGRAD_ACL_ACL_H_

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_MAJOR_VERSION 1
#define ACL_MINOR_VERSION 0
#define ACL_PATCH_VERSION 0

/** Initialises the runtime. configPath may be NULL or name a readable JSON file. */
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);
/** Releases the runtime. */
ACL_FUNC_VISIBILITY aclError aclFinalize(void);
/** The calling thread's latest error text, cleared by this call (NULL when there is none). */
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);

#ifdef __cplusplus
}
#endif

#endif /* POOLGRAD_ACL_ACL_H_ */
