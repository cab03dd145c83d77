import Crypto
import Foundation

/// The last signed customer state on disk, served while the server cannot be reached until the
/// end of the offline window the server signed (`offlineUntil`, cut to the app's own window).
///
/// The time it is compared with is the latest the device can tell: the wall clock, and the
/// anchor kept in the file (the server's time at the last reading plus the device's monotonic
/// time since, within a boot). Both only ever move the time forward, so setting the device's
/// clock back changes nothing while the anchor holds, and an anchor moved back (even re-MACed
/// by someone holding `device.key`) changes nothing while the clock is right: nothing local can
/// lengthen the signed window, a local anchor can only shorten it.
///
/// The file is authenticated with a key kept beside it (`device.key`); an edited file, or a state
/// whose signature does not verify with the server's key, is ignored.
struct OfflineCache: Sendable {
    let directory: URL
    let clock: DeviceClock

    /// Where the device's time was anchored to the server's.
    struct Anchor: Codable, Sendable, Hashable {
        var bootId: String
        var uptime: TimeInterval
        /// The server's time at ``uptime`` (milliseconds since 1970).
        var trustedDate: Int64
    }

    struct File: Codable, Sendable {
        var customerId: String
        var signedState: String
        var anchor: Anchor
        var mac: String?
    }

    /// What reading the cache found.
    enum Read: Sendable {
        case usable(CustomerInfo)
        case missing
        case expired(offlineUntil: Date)
        case invalid(String)
    }

    var fileURL: URL { directory.appendingPathComponent("customer-state.json") }
    var keyURL: URL { directory.appendingPathComponent("device.key") }

    /// Keeps `state` as the last answer, anchored at now.
    func save(_ state: SignedCustomerState) throws {
        let anchor = Anchor(bootId: clock.bootId(), uptime: clock.uptime(), trustedDate: state.claims.signedDate)
        try write(File(customerId: state.claims.customerId, signedState: state.jws, anchor: anchor))
    }

    /// The cached customer information, if the file is intact, verifies with `key`, is the
    /// customer's and still inside its signed offline window, cut to `window` from its signing.
    func read(key: P256.Signing.PublicKey, appId: String, customerId: String, window: TimeInterval) -> Read {
        guard let data = try? Data(contentsOf: fileURL) else { return .missing }
        guard var file = try? JSONDecoder().decode(File.self, from: data), let mac = file.mac else {
            return .invalid("the cache file is not readable")
        }
        file.mac = nil
        guard let expected = try? authenticationCode(of: file), expected == mac else {
            return .invalid("the cache file was changed outside the SDK")
        }
        guard file.customerId == customerId else { return .missing }
        let state: SignedCustomerState
        do {
            state = try SignedCustomerState.verified(file.signedState, key: key, appId: appId, customerId: customerId)
        } catch {
            return .invalid("the cached state does not verify: \(error)")
        }
        let now = trustedNow(file: &file)
        let offlineUntil = state.offlineUntil(window: window)
        guard now < offlineUntil else { return .expired(offlineUntil: offlineUntil) }
        return .usable(state.customerInfo(source: .cache, now: now, offlineUntil: offlineUntil))
    }

    /// The server's time now as the device can tell it: the later of the wall clock and the
    /// anchor (within a boot, the anchor plus the monotonic time since; after a reboot, the
    /// anchor itself). The anchor then moves to now (a high-water mark kept in the file), so
    /// setting the clock back, before or after a reboot, never gains any time.
    func trustedNow(file: inout File) -> Date {
        let uptime = clock.uptime()
        let anchored = Date(timeIntervalSince1970: TimeInterval(file.anchor.trustedDate) / 1000)
        let sinceAnchor = file.anchor.bootId == clock.bootId() && uptime >= file.anchor.uptime ? uptime - file.anchor.uptime : 0
        let now = max(anchored.addingTimeInterval(sinceAnchor), clock.wallNow())
        file.anchor = Anchor(bootId: clock.bootId(), uptime: uptime, trustedDate: Int64((now.timeIntervalSince1970 * 1000).rounded(.down)))
        try? write(file)
        return now
    }

    /// Forgets the cached state (another customer signs in).
    func clear() {
        try? FileManager.default.removeItem(at: fileURL)
    }

    private func write(_ file: File) throws {
        var file = file
        file.mac = nil
        file.mac = try authenticationCode(of: file)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Self.encoder.encode(file).write(to: fileURL, options: .atomic)
    }

    private func authenticationCode(of file: File) throws -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: try Self.encoder.encode(file), using: try deviceKey())
        return Data(mac).base64EncodedString()
    }

    /// The device's random key for the cache's authentication code, made at first use.
    private func deviceKey() throws -> SymmetricKey {
        if let text = try? String(contentsOf: keyURL, encoding: .utf8), let bytes = Data(base64Encoded: text), bytes.count == 32 {
            return SymmetricKey(data: bytes)
        }
        let key = SymmetricKey(size: .bits256)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(key.withUnsafeBytes { Data($0) }.base64EncodedString().utf8).write(to: keyURL, options: .atomic)
        return key
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
}
