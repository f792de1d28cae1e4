// check-load: loads pam_localauth.so the way libpam does (dlopen, RTLD_NOW) in a process whose environment holds
// the variables a Swift runtime reads, calls an entry point, and fails if loading or calling printed anything or
// changed any signal disposition. A module without a Swift runtime does neither.
// Usage: check-load /path/to/pam_localauth.so [/path/to/pam_localauth/extra.so]
// The second file, the module's rarely used parts, is loaded the same way and its one entry point called.
#include <dlfcn.h>
#include <security/pam_modules.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*entry_point)(pam_handle_t *, int, int, const char **);
typedef int (*extra_entry_point)(int, pam_handle_t *, int, int, const char **);

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) { fprintf(stderr, "usage: %s MODULE [EXTRA]\n", argv[0]); return 2; }
  setenv("SWIFT_DEBUG_HELP", "YES", 1);
  setenv("SWIFT_BACKTRACE", "enable=yes", 1);
  setenv("SWIFT_DETERMINISTIC_HASHING", "1", 1);
  setenv("SWIFT_NO_SUCH_VARIABLE", "1", 1);

  struct sigaction before[NSIG];
  for (int sig = 1; sig < NSIG; sig++) sigaction(sig, NULL, &before[sig]);

  // Anything the module writes to stdout or stderr while loading or running lands in this file.
  FILE *capture = tmpfile();
  if (!capture) { perror("tmpfile"); return 2; }
  fflush(stdout); fflush(stderr);
  int saved_out = dup(1), saved_err = dup(2);
  dup2(fileno(capture), 1); dup2(fileno(capture), 2);

  void *module = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  const char *error = module ? NULL : dlerror();
  entry_point authenticate = module ? (entry_point)dlsym(module, "pam_sm_authenticate") : NULL;
  // A NULL handle must be refused, without a crash and without PAM_SUCCESS.
  int code = authenticate ? authenticate(NULL, 0, 0, NULL) : -1;
  // The library's entry point, for authentication (1) and for an operation it does not know (99).
  void *extra = argc == 3 ? dlopen(argv[2], RTLD_NOW | RTLD_LOCAL) : NULL;
  const char *extra_error = argc == 3 && !extra ? dlerror() : NULL;
  extra_entry_point extra_entry = extra ? (extra_entry_point)dlsym(extra, "pam_localauth_extra_v1") : NULL;
  int extra_code = extra_entry ? extra_entry(1, NULL, 0, 0, NULL) : -1;
  int extra_unknown = extra_entry ? extra_entry(99, NULL, 0, 0, NULL) : -1;

  fflush(stdout); fflush(stderr);
  dup2(saved_out, 1); dup2(saved_err, 2);
  if (!module) { fprintf(stderr, "check-load: dlopen failed: %s\n", error); return 1; }
  if (!authenticate) { fprintf(stderr, "check-load: no pam_sm_authenticate\n"); return 1; }
  if (code != PAM_SERVICE_ERR) { fprintf(stderr, "check-load: a NULL handle gave %d, not PAM_SERVICE_ERR\n", code); return 1; }
  if (argc == 3) {
    if (!extra) { fprintf(stderr, "check-load: dlopen of %s failed: %s\n", argv[2], extra_error); return 1; }
    if (!extra_entry) { fprintf(stderr, "check-load: %s has no pam_localauth_extra_v1\n", argv[2]); return 1; }
    if (extra_code != PAM_SERVICE_ERR || extra_unknown != PAM_SERVICE_ERR) {
      fprintf(stderr, "check-load: the library's entry gave %d and %d, not PAM_SERVICE_ERR\n", extra_code, extra_unknown);
      return 1;
    }
  }

  long printed = ftell(capture);
  if (printed != 0) {
    char text[512] = {0};
    rewind(capture);
    size_t n = fread(text, 1, sizeof text - 1, capture);
    text[n] = 0;
    fprintf(stderr, "check-load: loading the module with SWIFT_* variables set printed %ld bytes:\n%s\n", printed, text);
    return 1;
  }
  int changed = 0;
  for (int sig = 1; sig < NSIG; sig++) {
    struct sigaction after;
    sigaction(sig, NULL, &after);
    if (after.sa_handler != before[sig].sa_handler || after.sa_flags != before[sig].sa_flags) {
      fprintf(stderr, "check-load: the module changed the handler of signal %d (%s)\n", sig, strsignal(sig));
      changed = 1;
    }
  }
  if (changed) return 1;
  printf("check-load: dlopen(RTLD_NOW) with SWIFT_DEBUG_HELP set: nothing printed, no signal handler changed, "
         "a NULL handle refused with PAM_SERVICE_ERR%s\n", argc == 3 ? " (the module and its library)" : "");
  return 0;
}
