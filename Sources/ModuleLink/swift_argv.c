// Compiled into pam_localauth.so's installable build only: the Makefile's module target defines
// PAM_LOCALAUTH_MODULE. Everywhere else (swift test, localauthctl) this file is empty, so test runners keep
// their CommandLine.arguments.
//
// The statically linked Swift runtime captures the process's argv for CommandLine.arguments with a static
// initializer that reads /proc/self/maps line by line through sscanf when the library is not the main
// program: about 190,000 instructions and the libc scanf pages, paid by every sudo that loads the module,
// called or not. The module never reads CommandLine, and a PAM module has no business with its host's
// command line, so these two definitions take the runtime's place: the linker then leaves the runtime's
// CommandLine object (and its initializer) out, and CommandLine.arguments is empty inside the module.
// The names and signatures are the runtime's own (stdlib/public/stubs/CommandLine.cpp).

#ifdef PAM_LOCALAUTH_MODULE

static char *module_empty_argv[1] = { 0 };

char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
  *outArgLen = 0;
  return module_empty_argv;
}

void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc) {
  (void)argv;
  (void)argc;
}

#endif
