import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The device's clocks: the wall clock the user may move, and a monotonic clock since boot
/// (counting sleep) that nobody can set, with the boot it belongs to.
public struct DeviceClock: Sendable {
    public var wallNow: @Sendable () -> Date
    /// Seconds since boot, sleep included.
    public var uptime: @Sendable () -> TimeInterval
    /// Changes at every boot (so an uptime is compared only within its boot).
    public var bootId: @Sendable () -> String

    public init(
        wallNow: @escaping @Sendable () -> Date, uptime: @escaping @Sendable () -> TimeInterval, bootId: @escaping @Sendable () -> String
    ) {
        self.wallNow = wallNow
        self.uptime = uptime
        self.bootId = bootId
    }

    /// The real clocks of this device.
    public static let system = DeviceClock(wallNow: { Date() }, uptime: systemUptime, bootId: systemBootId)

    @Sendable static func systemUptime() -> TimeInterval {
        var spec = timespec()
        #if os(Linux)
        clock_gettime(CLOCK_BOOTTIME, &spec)
        #else
        clock_gettime(CLOCK_MONOTONIC, &spec)
        #endif
        return TimeInterval(spec.tv_sec) + TimeInterval(spec.tv_nsec) / 1e9
    }

    @Sendable static func systemBootId() -> String {
        #if os(Linux)
        let text = (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)) ?? ""
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
        #elseif canImport(Darwin)
        var boot = timeval()
        var size = MemoryLayout<timeval>.size
        var names: [Int32] = [CTL_KERN, KERN_BOOTTIME]
        guard sysctl(&names, 2, &boot, &size, nil, 0) == 0 else { return "" }
        return "\(boot.tv_sec).\(boot.tv_usec)"
        #else
        return ""
        #endif
    }
}
