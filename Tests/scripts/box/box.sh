#!/bin/bash
# box.sh: a throw-away Linux desktop's system layer for the real-desktop tests (issue 38): systemd as PID 1 of a
# container, with its journal, the system bus, systemd-logind (sessions, seats), users' service managers and
# polkitd, on a machine whose own PID 1 is not systemd. Nothing on the host changes: the box's root is an overlay
# of / whose upper layer is a tmpfs in a private mount namespace (with the host's /usr read-only), so what the box
# (or a setup script) writes there, /etc included, vanishes when the box stops.
#
#   box.sh start DIR [SETUP]   boots a box whose state lives in DIR (a new, empty folder); SETUP, if given, runs on
#                              the host before the boot with the box's root as its argument (chroot into it to add
#                              users; /proc and /dev are mounted there meanwhile). Prints "booted in N ms" when
#                              `systemctl is-system-running` says running or degraded; exits 1 otherwise.
#                              /usr is the host's, read-only, but for the folders named in BOX_USR_WRITABLE
#                              (space-separated), which are copies on a tmpfs that SETUP may add files to.
#   box.sh ns DIR CMD...       runs CMD as root in the box's namespaces and root, with a clean environment (not in
#                              a unit: a systemd-run there makes units and logind sessions).
#   box.sh stop DIR            powers the box off (SIGRTMIN+4 to its PID 1), kills it after 15 s, removes its cgroup.
#   box.sh cgroup DIR          prints the box's cgroup folder (there while the box runs, removed by stop).
#
# How: stage 1 runs in a private mount namespace: a tmpfs, the overlay on it, /usr, the box's own files in the upper
# layer, SETUP, then a cgroup2 folder of the box's own and `unshare --pid --uts --ipc --net --cgroup --mount`, in which
# stage 2 mounts /proc (its /proc/sys read-only), a read-only /sys, the box's cgroup2 tree, a /dev of its own (a new
# devpts instance; /dev/console a pseudo-terminal whose output goes to DIR/console.log), tmpfs /run and /tmp, moves
# the root there (pivot_root) and becomes systemd. Every namespace matters: without the UTS one systemd would rename
# the host, without the IPC one logind could remove the host's IPC objects, without the network one it would
# configure the host's loopback. Needs root and a cgroup2 hierarchy (/sys/fs/cgroup/unified or /sys/fs/cgroup).
set -u
SELF=$(readlink -f "$0")
PATHS=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# Units a throw-away box has no use for, or that would act on the kernel the host shares.
MASKED="ssh.service sshd.service cron.service anacron.service anacron.timer systemd-timesyncd.service
systemd-modules-load.service systemd-remount-fs.service systemd-pstore.service systemd-journald-audit.socket
console-getty.service getty@tty1.service e2scrub_reap.service e2scrub_all.timer fstrim.timer apt-daily.timer
apt-daily-upgrade.timer dpkg-db-backup.timer man-db.timer unattended-upgrades.service postgresql.service"

fail() { echo "box: $*" >&2; exit 1; }
cgroup2_root() {
  local c
  for c in /sys/fs/cgroup/unified /sys/fs/cgroup; do
    [ "$(stat -f -c %T "$c" 2>/dev/null)" = cgroup2fs ] && { echo "$c"; return 0; }
  done
  return 1
}
# The box's cgroup folder, named after the state folder's path (one box per folder).
cgroup_of() { echo "$(cgroup2_root)/localauth-box-$(readlink -f "$1" | md5sum | cut -c1-12)"; }
remove_cgroup() { # depth first; a folder whose last process just died may take a moment to empty
  local cg=$1 try
  for try in 1 2 3 4 5 6 7 8 9 10; do
    [ -d "$cg" ] || return 0
    find "$cg" -depth -type d -exec rmdir {} + 2>/dev/null
    [ -d "$cg" ] || return 0
    sleep 0.2
  done
  echo "box: cgroup $cg is left" >&2
  return 1
}

# The console: runs stage 1 on a pseudo-terminal (which stage 2 mounts as /dev/console) and logs what it shows.
CONSOLE='
import os, pty, select, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
log = open(sys.argv[1], "ab", buffering=0)
while True:
    if select.select([fd], [], [], 1.0)[0]:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b""
        if not data:
            break
        log.write(data)
    elif os.waitpid(pid, os.WNOHANG)[0] == pid:
        pid = 0
        break
if pid:
    os.waitpid(pid, 0)
'

stage1() {
  local dir=$1 setup=$2 root=$1/fs/root cg
  cg=$(cgroup_of "$dir")
  set -e
  mount --make-rprivate /
  mount -t tmpfs -o mode=0755,size=2g localauth-box "$dir/fs"
  mkdir -p "$dir/fs/upper" "$dir/fs/work" "$root"
  mount -t overlay overlay -o "lowerdir=/,upperdir=$dir/fs/upper,workdir=$dir/fs/work" "$root"
  # /usr is the host's, read-only: overlayfs reports its own device number for a file of the lower layer, while
  # /proc/PID/maps names the real one, so through the overlay no program would be the file its path names (the
  # module's system-program check, docs/RULES.md). The folders of BOX_USR_WRITABLE are copies on a tmpfs.
  mount --rbind /usr "$root/usr"
  mount -o remount,bind,ro "$root/usr"
  local folder real
  for folder in ${BOX_USR_WRITABLE:-}; do
    real=$(readlink -f "$folder")
    case $real in /usr/?*) ;; *) echo "box: $folder is not a folder under /usr" >&2; exit 1 ;; esac
    mount -t tmpfs -o mode=0755,size=256m localauth-box-usr "$root$real"
    cp -a "$real/." "$root$real/"
  done
  # A machine of its own: name, machine id, no file systems to mount, a journal in memory, no needless units.
  echo localauth-box >"$root/etc/hostname"
  printf '127.0.1.1\tlocalauth-box\n' >>"$root/etc/hosts"
  tr -d '-' </proc/sys/kernel/random/uuid >"$root/etc/machine-id"
  echo "# localauth box: nothing to mount" >"$root/etc/fstab"
  mkdir -p "$root/etc/systemd/system" "$root/etc/systemd/journald.conf.d"
  printf '[Journal]\nStorage=volatile\n' >"$root/etc/systemd/journald.conf.d/box.conf"
  local unit
  for unit in $MASKED; do ln -sf /dev/null "$root/etc/systemd/system/$unit"; done
  if [ -n "$setup" ]; then
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount --make-rslave "$root/dev"
    mount -t tmpfs tmpfs "$root/tmp"
    "$setup" "$root"
    umount "$root/tmp"
    umount -R "$root/dev"
    umount "$root/proc"
  fi
  # Stage 2 starts in the box's cgroup, whose root it becomes (cgroup namespace); this shell then leaves it, so that
  # the box's root cgroup holds only the box's processes.
  echo $$ >"$cg/cgroup.procs"
  unshare --pid --fork --uts --ipc --net --cgroup --mount --propagation private \
    /bin/bash "$SELF" _stage2 "$dir" "$(tty)" &
  local unshare_pid=$!
  for _ in $(seq 200); do
    [ -s "$dir/pid1" ] && break
    sleep 0.05
  done
  local host_root
  host_root=$(cgroup2_root)
  echo "$unshare_pid" >"$host_root/cgroup.procs"
  echo $$ >"$host_root/cgroup.procs"
  set +e
  wait "$unshare_pid"
  echo "box: PID 1 ended with status $?"
}

stage2() {
  local dir=$1 console=$2 root=$1/fs/root node host_pid
  set -e
  # This shell's number in the host's PID namespace, the one the host's /proc (still mounted here) shows; it
  # becomes systemd's (exec). Written in one step, so that a reader sees all of it or nothing.
  read -r host_pid _ </proc/self/stat
  echo "$host_pid" >"$dir/pid1.new"
  mv "$dir/pid1.new" "$dir/pid1"
  mount --make-rprivate /
  mount -t proc -o nosuid,nodev,noexec proc "$root/proc"
  mount --bind "$root/proc/sys" "$root/proc/sys"
  mount -o remount,bind,ro "$root/proc/sys"
  if [ -e "$root/proc/sysrq-trigger" ]; then
    mount --bind "$root/proc/sysrq-trigger" "$root/proc/sysrq-trigger"
    mount -o remount,bind,ro "$root/proc/sysrq-trigger"
  fi
  mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$root/sys"
  mount -t cgroup2 -o nosuid,nodev,noexec cgroup2 "$root/sys/fs/cgroup"
  mount -t tmpfs -o mode=0755,nosuid,size=16m dev "$root/dev"
  for node in null zero full random urandom tty; do cp -a "/dev/$node" "$root/dev/$node"; done
  mkdir -p "$root/dev/pts" "$root/dev/shm" "$root/dev/mqueue"
  mount -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5,nosuid,noexec devpts "$root/dev/pts"
  ln -s pts/ptmx "$root/dev/ptmx"
  mount -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm"
  mount -t mqueue -o nosuid,nodev,noexec mqueue "$root/dev/mqueue"
  ln -s /proc/self/fd "$root/dev/fd"
  ln -s /proc/self/fd/0 "$root/dev/stdin"
  ln -s /proc/self/fd/1 "$root/dev/stdout"
  ln -s /proc/self/fd/2 "$root/dev/stderr"
  touch "$root/dev/console"
  mount --bind "$console" "$root/dev/console"
  mount -t tmpfs -o mode=0755,nosuid,nodev,size=256m run "$root/run"
  mount -t tmpfs -o mode=1777,nosuid,nodev tmp "$root/tmp"
  cd "$root"
  mkdir -p .host
  pivot_root . .host
  cd /
  umount -l /.host
  rmdir /.host
  exec env -i container=localauth-box TERM=vt220 PATH=$PATHS /lib/systemd/systemd --system
}

pid1() { local p; p=$(cat "$1/pid1" 2>/dev/null) && [ -n "$p" ] && kill -0 "$p" 2>/dev/null && echo "$p"; }

ns() {
  local dir=$1 p; shift
  p=$(pid1 "$dir") || fail "no box running in $dir"
  nsenter -t "$p" -m -u -i -n -p -C -r -w env -i PATH=$PATHS TERM=dumb LANG=C.UTF-8 "$@"
}

start() {
  local dir=$1 setup=${2:-} t0 p="" state="" cg
  [ "$(id -u)" = 0 ] || fail "start needs root"
  cgroup2_root >/dev/null || fail "no cgroup2 hierarchy at /sys/fs/cgroup/unified or /sys/fs/cgroup"
  [ -z "$setup" ] || setup=$(readlink -f "$setup")
  mkdir -p "$dir/fs" && dir=$(readlink -f "$dir")
  cg=$(cgroup_of "$dir")
  mkdir "$cg" || fail "cannot make $cg"
  t0=$(date +%s%N)
  setsid python3 -c "$CONSOLE" "$dir/console.log" /usr/bin/unshare --mount --propagation private \
    /bin/bash "$SELF" _stage1 "$dir" "$setup" </dev/null >"$dir/stage1.log" 2>&1 &
  echo $! >"$dir/console.pid"
  for _ in $(seq 600); do
    p=$(pid1 "$dir") && break
    kill -0 "$(cat "$dir/console.pid")" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$p" ] || { tail -n 20 "$dir/stage1.log" "$dir/console.log" >&2; stop "$dir" >&2; fail "the box did not start"; }
  for _ in $(seq 300); do
    state=$(ns "$dir" systemctl is-system-running 2>/dev/null)
    case $state in running|degraded) break ;; esac
    kill -0 "$p" 2>/dev/null || break
    sleep 0.2
  done
  case $state in
    running|degraded) echo "box: $state, booted in $(( ($(date +%s%N) - t0) / 1000000 )) ms" ;;
    *) tail -n 20 "$dir/stage1.log" "$dir/console.log" >&2; stop "$dir" >&2; fail "the box did not boot (state: ${state:-none})" ;;
  esac
}

stop() {
  local dir=$1 p t0 console cg
  t0=$(date +%s%N)
  cg=$(cgroup_of "$dir")
  # PID 1 as recorded, or as its cgroup says (a box whose start failed half-way).
  p=$(pid1 "$dir") || p=$(head -n 1 "$cg/init.scope/cgroup.procs" 2>/dev/null)
  if [ -n "$p" ]; then
    kill -s SIGRTMIN+4 "$p"
    for _ in $(seq 150); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$p" 2>/dev/null; then echo "box: PID 1 still runs after 15 s: SIGKILL" >&2; kill -9 "$p"; fi
  fi
  console=$(cat "$dir/console.pid" 2>/dev/null)
  if [ -n "$console" ]; then
    for _ in $(seq 50); do kill -0 "$console" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$console" 2>/dev/null
  fi
  rm -f "$dir/pid1"
  # Whatever is left in the box's cgroup (the kernel's cgroup.kill, Linux 5.14 and later).
  [ ! -e "$cg/cgroup.kill" ] || echo 1 >"$cg/cgroup.kill" 2>/dev/null
  remove_cgroup "$cg"
  local status=$?
  echo "box: stopped in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  return $status
}

case ${1:-} in
  _stage1) stage1 "$2" "$3" ;;
  _stage2) stage2 "$2" "$3" ;;
  start) start "${2:?box.sh start DIR [SETUP]}" "${3:-}" ;;
  stop) stop "${2:?box.sh stop DIR}" ;;
  cgroup) cgroup_of "${2:?box.sh cgroup DIR}" ;;
  ns) dir=${2:?box.sh ns DIR CMD...}; shift 2; ns "$dir" "$@" ;;
  *) sed -n '2,22p' "$SELF" >&2; exit 2 ;;
esac
