// What the CLI does before it reads a key: no core file, and on Linux no dump of any kind (a
// core of a crashed CLI held the database page key). A C function because prctl is variadic,
// which Swift cannot call.
#include <sys/resource.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

static inline int sessionvault_refuse_core_dumps(void) {
    struct rlimit none = {0, 0};
    int status = setrlimit(RLIMIT_CORE, &none);
#ifdef __linux__
    // RLIMIT_CORE alone does not stop a core_pattern pipe (systemd-coredump, apport).
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) status = -1;
#endif
    return status;
}
