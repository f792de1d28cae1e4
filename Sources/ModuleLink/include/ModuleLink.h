// ModuleLink: link-time pieces of pam_localauth.so that are not PAM and not Swift (see swift_argv.c).
// Nothing here is called from Swift; the target exists so that its object precedes the Swift runtime's
// archives on the module's link line.
#ifndef MODULE_LINK_H
#define MODULE_LINK_H
#endif
