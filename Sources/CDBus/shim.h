// CDBus: the few sd-bus calls (libsystemd's D-Bus client, as pam_fprintd uses) that the fprintd sensor, logind's
// LockedHint and polkit's CheckAuthorization (an app's dialog, issue 39) make.
//
// libsystemd.so.0 is opened on first use (dlopen), not linked: the passcode path and the simulated sensor never
// load it, and a machine without it still loads the module. The types are declared here as sd-bus declares them
// (no libsystemd-dev needed); only calls that are not variadic are used. Every wrapper returns -ENOSYS when the
// library or a function is missing (cdbus_available says so first), so every caller already fails closed.
#ifndef CDBUS_SHIM_H
#define CDBUS_SHIM_H
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sd_bus sd_bus;
typedef struct sd_bus_message sd_bus_message;
typedef struct {
  const char *name;
  const char *message;
  int _need_free;
} sd_bus_error;

typedef struct {
  int (*open_system)(sd_bus **bus);
  sd_bus *(*flush_close_unref)(sd_bus *bus);
  int (*new_method_call)(sd_bus *bus, sd_bus_message **m, const char *destination, const char *path,
                         const char *interface, const char *member);
  int (*append_basic)(sd_bus_message *m, char type, const void *p);
  int (*call)(sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_error *error, sd_bus_message **reply);
  int (*read_basic)(sd_bus_message *m, char type, void *p);
  int (*enter_container)(sd_bus_message *m, char type, const char *contents);
  int (*exit_container)(sd_bus_message *m);
  sd_bus_message *(*message_unref)(sd_bus_message *m);
  void (*error_free)(sd_bus_error *e);
  int (*process)(sd_bus *bus, sd_bus_message **r);
  int (*wait)(sd_bus *bus, uint64_t timeout_usec);
  int (*is_signal)(sd_bus_message *m, const char *interface, const char *member);
  const char *(*get_path)(sd_bus_message *m);
  int (*open_container)(sd_bus_message *m, char type, const char *contents);
  int (*close_container)(sd_bus_message *m);
  int (*send)(sd_bus *bus, sd_bus_message *m, uint64_t *cookie);
  int (*get_reply_cookie)(sd_bus_message *m, uint64_t *cookie);
  const sd_bus_error *(*get_error)(sd_bus_message *m);
} cdbus_library;

static inline cdbus_library *cdbus_state(void) {
  static cdbus_library state;
  return &state;
}

static inline void cdbus_load(void) {
  void *handle = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) return;
  cdbus_library *l = cdbus_state();
  l->open_system = (int (*)(sd_bus **))dlsym(handle, "sd_bus_open_system");
  l->flush_close_unref = (sd_bus * (*)(sd_bus *)) dlsym(handle, "sd_bus_flush_close_unref");
  l->new_method_call = (int (*)(sd_bus *, sd_bus_message **, const char *, const char *, const char *, const char *))dlsym(
      handle, "sd_bus_message_new_method_call");
  l->append_basic = (int (*)(sd_bus_message *, char, const void *))dlsym(handle, "sd_bus_message_append_basic");
  l->call = (int (*)(sd_bus *, sd_bus_message *, uint64_t, sd_bus_error *, sd_bus_message **))dlsym(handle, "sd_bus_call");
  l->read_basic = (int (*)(sd_bus_message *, char, void *))dlsym(handle, "sd_bus_message_read_basic");
  l->enter_container = (int (*)(sd_bus_message *, char, const char *))dlsym(handle, "sd_bus_message_enter_container");
  l->exit_container = (int (*)(sd_bus_message *))dlsym(handle, "sd_bus_message_exit_container");
  l->message_unref = (sd_bus_message * (*)(sd_bus_message *)) dlsym(handle, "sd_bus_message_unref");
  l->error_free = (void (*)(sd_bus_error *))dlsym(handle, "sd_bus_error_free");
  l->process = (int (*)(sd_bus *, sd_bus_message **))dlsym(handle, "sd_bus_process");
  l->wait = (int (*)(sd_bus *, uint64_t))dlsym(handle, "sd_bus_wait");
  l->is_signal = (int (*)(sd_bus_message *, const char *, const char *))dlsym(handle, "sd_bus_message_is_signal");
  l->get_path = (const char *(*)(sd_bus_message *))dlsym(handle, "sd_bus_message_get_path");
  l->open_container = (int (*)(sd_bus_message *, char, const char *))dlsym(handle, "sd_bus_message_open_container");
  l->close_container = (int (*)(sd_bus_message *))dlsym(handle, "sd_bus_message_close_container");
  l->send = (int (*)(sd_bus *, sd_bus_message *, uint64_t *))dlsym(handle, "sd_bus_send");
  l->get_reply_cookie = (int (*)(sd_bus_message *, uint64_t *))dlsym(handle, "sd_bus_message_get_reply_cookie");
  l->get_error = (const sd_bus_error *(*)(sd_bus_message *))dlsym(handle, "sd_bus_message_get_error");
}

/// The loaded functions (NULL members where missing), loading them on the first call.
static inline const cdbus_library *cdbus_functions(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, cdbus_load);
  return cdbus_state();
}

/// True when every function the sensor needs was found.
static inline int cdbus_available(void) {
  const cdbus_library *l = cdbus_functions();
  return l->open_system && l->flush_close_unref && l->new_method_call && l->append_basic && l->call && l->read_basic &&
         l->enter_container && l->exit_container && l->message_unref && l->error_free && l->process && l->wait &&
         l->is_signal && l->get_path && l->open_container && l->close_container && l->send && l->get_reply_cookie &&
         l->get_error;
}

// The wrappers below are called only after cdbus_available() returned true.

/// sd_bus_open_system: the system bus (DBUS_SYSTEM_BUS_ADDRESS is read with secure_getenv, so a setuid host
/// always gets /run/dbus/system_bus_socket).
static inline int cdbus_open_system(sd_bus **bus) { return cdbus_functions()->open_system(bus); }
static inline void cdbus_close(sd_bus *bus) { cdbus_functions()->flush_close_unref(bus); }
static inline int cdbus_new_call(sd_bus *bus, sd_bus_message **m, const char *destination, const char *path,
                                 const char *interface, const char *member) {
  return cdbus_functions()->new_method_call(bus, m, destination, path, interface, member);
}
/// Appends a string ('s') or object path ('o').
static inline int cdbus_append_string(sd_bus_message *m, char type, const char *value) {
  return cdbus_functions()->append_basic(m, type, value);
}
/// Sends `m` and waits at most `usec` for the reply; the error's name is copied into `error_name` (a D-Bus error
/// name such as net.reactivated.Fprint.Error.NoEnrolledPrints), and the error freed.
static inline int cdbus_call(sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_message **reply, char *error_name,
                             size_t error_size) {
  sd_bus_error error = {NULL, NULL, 0};
  int r = cdbus_functions()->call(bus, m, usec, &error, reply);
  if (error_size > 0) {
    error_name[0] = 0;
    if (error.name != NULL) {
      size_t i = 0;
      for (; i + 1 < error_size && error.name[i] != 0; i++) error_name[i] = error.name[i];
      error_name[i] = 0;
    }
  }
  cdbus_functions()->error_free(&error);
  return r;
}
/// Reads a string, object path ('o') or boolean ('b', into an int).
static inline int cdbus_read_string(sd_bus_message *m, char type, const char **value) {
  return cdbus_functions()->read_basic(m, type, value);
}
static inline int cdbus_read_bool(sd_bus_message *m, int *value) { return cdbus_functions()->read_basic(m, 'b', value); }
static inline int cdbus_enter_array(sd_bus_message *m, const char *contents) {
  return cdbus_functions()->enter_container(m, 'a', contents);
}
static inline int cdbus_enter_variant(sd_bus_message *m, const char *contents) {
  return cdbus_functions()->enter_container(m, 'v', contents);
}
static inline int cdbus_exit_container(sd_bus_message *m) { return cdbus_functions()->exit_container(m); }
static inline void cdbus_unref(sd_bus_message *m) { cdbus_functions()->message_unref(m); }
/// One unit of work; a message no callback handled (our signals) comes back in `message`.
static inline int cdbus_process(sd_bus *bus, sd_bus_message **message) { return cdbus_functions()->process(bus, message); }
static inline int cdbus_wait(sd_bus *bus, uint64_t usec) { return cdbus_functions()->wait(bus, usec); }
static inline int cdbus_is_signal(sd_bus_message *m, const char *interface, const char *member) {
  return cdbus_functions()->is_signal(m, interface, member);
}
static inline const char *cdbus_path(sd_bus_message *m) { return cdbus_functions()->get_path(m); }
/// Appends a 32-bit unsigned ('u') or signed ('i') integer.
static inline int cdbus_append_u32(sd_bus_message *m, char type, uint32_t value) {
  return cdbus_functions()->append_basic(m, type, &value);
}
/// Appends a 64-bit unsigned integer ('t').
static inline int cdbus_append_u64(sd_bus_message *m, uint64_t value) { return cdbus_functions()->append_basic(m, 't', &value); }
/// Opens a struct ('r'), array ('a'), dictionary entry ('e') or variant ('v') of `contents`.
static inline int cdbus_open_container(sd_bus_message *m, char type, const char *contents) {
  return cdbus_functions()->open_container(m, type, contents);
}
static inline int cdbus_close_container(sd_bus_message *m) { return cdbus_functions()->close_container(m); }
/// Sends `m` without waiting; its serial goes to `cookie`, which the reply names (cdbus_reply_cookie).
static inline int cdbus_send(sd_bus *bus, sd_bus_message *m, uint64_t *cookie) { return cdbus_functions()->send(bus, m, cookie); }
/// The serial of the call `m` answers; negative when `m` is no reply.
static inline int cdbus_reply_cookie(sd_bus_message *m, uint64_t *cookie) {
  return cdbus_functions()->get_reply_cookie(m, cookie);
}
/// The D-Bus error name of an error reply into `name` (empty when `m` is no error); 1 when it is an error.
static inline int cdbus_error_name(sd_bus_message *m, char *name, size_t size) {
  const sd_bus_error *error = cdbus_functions()->get_error(m);
  if (size > 0) name[0] = 0;
  if (error == NULL || error->name == NULL) return 0;
  size_t i = 0;
  for (; size > 0 && i + 1 < size && error->name[i] != 0; i++) name[i] = error->name[i];
  if (size > 0) name[i] = 0;
  return 1;
}
/// Reads a 32-bit integer ('u' or 'i').
static inline int cdbus_read_u32(sd_bus_message *m, char type, uint32_t *value) {
  return cdbus_functions()->read_basic(m, type, value);
}
/// Enters a struct ('r') or dictionary entry ('e') of `contents`.
static inline int cdbus_enter_container(sd_bus_message *m, char type, const char *contents) {
  return cdbus_functions()->enter_container(m, type, contents);
}
#endif
