# lit configuration for aimodel's command-line tests.
import os
import lit.formats

config.name = "aimodel"
# bash, so RUN lines may loop over corpus files.
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".test", ".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.aimodel_obj_root, "tests")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]

config.environment["PATH"] = os.pathsep.join(
    [config.aimodel_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
# Output must not depend on the caller's terminal settings.
for var in ["NO_COLOR", "PRE_COMMIT", "TERM"]:
    config.environment.pop(var, None)

config.substitutions.append(("%aimodel", os.path.join(config.aimodel_tools_dir, "aimodel")))
config.substitutions.append(("%fixtures", config.aimodel_fixtures_dir))
config.substitutions.append(("%srcroot", config.aimodel_src_root))
config.substitutions.append(("%shared", config.aimodel_shared_dir))

# Tests reading ../shared skip cleanly when it is absent.
if os.path.isdir(os.path.join(config.aimodel_shared_dir, "corpus")):
    config.available_features.add("shared-corpus")

import shutil
import subprocess

def works(command):
    try:
        return subprocess.run(command, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=20).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False

# Hostile-world tests: private mount namespaces (bind mounts, a full tmpfs)
# and pid namespaces, as containers and CI runners have. Skipped cleanly
# where they are not available (not root, no unshare).
if shutil.which("unshare") and works(["unshare", "-m", "--propagation", "private",
                                      "sh", "-c", "mount -t tmpfs tmpfs /mnt 2>/dev/null || mount -t tmpfs tmpfs /tmp"]):
    config.available_features.add("mount-namespace")
if shutil.which("unshare") and works(["unshare", "-p", "-f", "true"]):
    config.available_features.add("pid-namespace")
if shutil.which("flock"):
    config.available_features.add("flock")
if shutil.which("pre-commit") and shutil.which("git"):
    config.available_features.add("pre-commit")
if shutil.which("script"):
    config.available_features.add("script")
# Built with support/'s plain POSIX fallbacks: no mount ids (a bind mount of
# the same file system cannot be told from its folder) and no atomic swap
# of two folders. Tests of what only the Linux calls give require these.
if config.posix_fallbacks.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("posix-fallbacks")
    config.substitutions.append(("%race_flags_aside", "--aside-ok"))
    config.substitutions.append(("%race_flags", "--no-exchange"))
else:
    config.available_features.add("mount-ids")
    config.substitutions.append(("%race_flags_aside", ""))
    config.substitutions.append(("%race_flags", ""))
# Markdown reports are rendered as GitHub renders them.
if shutil.which("cmark-gfm"):
    config.available_features.add("cmark-gfm")
# The HTML report is rendered by headless Chromium where it is installed.
for name in ["chromium", "chromium-browser"]:
    if shutil.which(name):
        config.available_features.add("chromium")
        config.substitutions.append(("%chromium", shutil.which(name)))
        break
# A group shared with another account that this user may give a file to
# (root: any; others: one of theirs), for configs a group may write: the
# audit trusts those only as git committed them. Skipped without one.
def shared_group():
    import grp
    import pwd
    me = os.geteuid()
    try:
        my_name = pwd.getpwuid(me).pw_name
    except KeyError:
        return None
    mine = set(os.getgroups())
    for group in grp.getgrall():
        if me != 0 and group.gr_gid not in mine:
            continue
        if any(m != my_name for m in group.gr_mem) or any(
                p.pw_gid == group.gr_gid and p.pw_uid != me for p in pwd.getpwall()):
            return group.gr_name
    return None

if shared_group():
    config.available_features.add("shared-group")
    config.substitutions.append(("%othergroup", shared_group()))
