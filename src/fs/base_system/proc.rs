//! Fixed `/proc` files with the facts of upstream's machine: Docker Desktop's LinuxKit VM on an
//! Apple-silicon Mac (aarch64, 4 processors, 8 GiB). Agents `cat` these, and the guest's
//! `free`, `uptime` and `w` read them as procps does, so the figures are stated once, here.
//! The mount table is the one the guest's `df` reports.

/// `/proc/version`, agreeing with `uname -r` / `uname -v` (upstream logged
/// `cat /proc/version | awk '{print $3}'` → `5.15.49-linuxkit`). LinuxKit builds its kernels
/// in Alpine.
pub const VERSION: &str = "Linux version 5.15.49-linuxkit (root@buildkitsandbox) \
(gcc (Alpine 10.2.1_pre1) 10.2.1 20201203, GNU ld (GNU Binutils) 2.35.2) \
#1 SMP PREEMPT Tue Sep 13 07:51:46 UTC 2022\n";

/// 1-, 5- and 15-minute loads, runnable/total tasks, last pid. Upstream's readings were
/// between 0.01 and 0.40; `uptime | awk '{print $10}'` printed `0.03`.
pub const LOADAVG: &str = "0.02 0.04 0.03 1/606 1042\n";

/// Seconds up and idle (idle summed over the 4 processors): up 5:05.
pub const UPTIME: &str = "18342.47 72895.31\n";

/// `MemAvailable` is set to free + buffers + cache, so procps 3.3.17 (used = total − free −
/// buffers − cache) and 4.x (used = total − available) print the same `used`.
pub const MEMINFO: &str = "\
MemTotal:        8039440 kB
MemFree:         5386352 kB
MemAvailable:    7481320 kB
Buffers:          104220 kB
Cached:          1893400 kB
SwapCached:            0 kB
Active:           871624 kB
Inactive:        1391852 kB
Active(anon):       2964 kB
Inactive(anon):   601320 kB
Active(file):     868660 kB
Inactive(file):   790532 kB
Unevictable:           0 kB
Mlocked:               0 kB
SwapTotal:       1048572 kB
SwapFree:        1048572 kB
Dirty:                 4 kB
Writeback:             0 kB
AnonPages:        265940 kB
Mapped:           402336 kB
Shmem:            338432 kB
KReclaimable:      97348 kB
Slab:             177916 kB
SReclaimable:      97348 kB
SUnreclaim:        80568 kB
KernelStack:        6512 kB
PageTables:         4660 kB
NFS_Unstable:          0 kB
Bounce:                0 kB
WritebackTmp:          0 kB
CommitLimit:     5068292 kB
Committed_AS:    2218236 kB
VmallocTotal:   133141626880 kB
VmallocUsed:       22276 kB
VmallocChunk:          0 kB
Percpu:             1440 kB
AnonHugePages:     75776 kB
ShmemHugePages:        0 kB
ShmemPmdMapped:        0 kB
FileHugePages:         0 kB
FilePmdMapped:         0 kB
CmaTotal:          32768 kB
CmaFree:           31684 kB
HugePages_Total:       0
HugePages_Free:        0
HugePages_Rsvd:        0
HugePages_Surp:        0
Hugepagesize:       2048 kB
Hugetlb:               0 kB
";

/// Processors as the arm64 kernel lists them (Apple cores report implementer 0x61).
pub const PROCESSORS: usize = 4;

pub fn cpuinfo() -> String {
    (0..PROCESSORS)
        .map(|n| {
            format!(
                "processor\t: {n}\nBogoMIPS\t: 48.00\nFeatures\t: fp asimd evtstrm aes pmull \
                 sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma lrcpc dcpop \
                 sha3 asimddp sha512 asimdfhm dit uscat ilrcpc flagm ssbs sb paca pacg dcpodp \
                 flagm2 frint\nCPU implementer\t: 0x61\nCPU architecture: 8\nCPU variant\t: \
                 0x0\nCPU part\t: 0x000\nCPU revision\t: 0\n\n"
            )
        })
        .collect()
}

/// A container's mounts: the overlay root, Docker's `/dev`, `/sys` and `/proc` mounts, the
/// three files Docker binds from the VM's disk, and the masked `/sys/firmware`. Upstream
/// logged `df -P . | … | grep -w overlay /proc/self/mounts | awk '{print $1}'` → `overlay`.
pub const MOUNTS: &str = "\
overlay / overlay rw,relatime,lowerdir=/var/lib/docker/overlay2/l/Q2QKNJ4DZLVSXBR5ZQ7SLP3HTM:/var/lib/docker/overlay2/l/RU5TSOCWLMDCHNCAGNZX5SR6KD,upperdir=/var/lib/docker/overlay2/0c9e1c3f2a7d/diff,workdir=/var/lib/docker/overlay2/0c9e1c3f2a7d/work 0 0
proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0
tmpfs /dev tmpfs rw,nosuid,size=65536k,mode=755 0 0
devpts /dev/pts devpts rw,nosuid,noexec,relatime,gid=5,mode=620,ptmxmode=666 0 0
sysfs /sys sysfs ro,nosuid,nodev,noexec,relatime 0 0
cgroup /sys/fs/cgroup cgroup2 ro,nosuid,nodev,noexec,relatime 0 0
mqueue /dev/mqueue mqueue rw,nosuid,nodev,noexec,relatime 0 0
shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k 0 0
/dev/vda1 /etc/resolv.conf ext4 rw,relatime,discard 0 0
/dev/vda1 /etc/hostname ext4 rw,relatime,discard 0 0
/dev/vda1 /etc/hosts ext4 rw,relatime,discard 0 0
tmpfs /sys/firmware tmpfs ro,relatime 0 0
";

/// The file system types the kernel knows (`nodev` ones need no device).
pub const FILESYSTEMS: &str = "\
nodev\tsysfs
nodev\ttmpfs
nodev\tbdev
nodev\tproc
nodev\tcgroup
nodev\tcgroup2
nodev\tcpuset
nodev\tdevtmpfs
nodev\tdebugfs
nodev\ttracefs
nodev\tsecurityfs
nodev\tsockfs
nodev\tbpf
nodev\tpipefs
nodev\tramfs
nodev\thugetlbfs
nodev\tdevpts
\text3
\text2
\text4
\tsquashfs
\tvfat
nodev\tnfs
nodev\tnfs4
nodev\tautofs
\tfuseblk
nodev\tfuse
nodev\tfusectl
nodev\tvirtiofs
nodev\toverlay
nodev\tmqueue
nodev\tbinfmt_misc
";
