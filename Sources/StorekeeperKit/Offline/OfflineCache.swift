import Crypto
import Foundation

/// The last signed customer state on disk, served while the server cannot be reached for the
/// offline window, measured on the server's clock: the signing instant plus the device's
/// monotonic time since (the wall clock is only a floor after a reboot), so moving the device's
/// clock never extends access.
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
    /// customer's and still inside `window` of its signing.
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
        let offlineUntil = state.signedDate.addingTimeInterval(window)
        guard now < offlineUntil else { return .expired(offlineUntil: offlineUntil) }
        return .usable(state.customerInfo(source: .cache, now: now, offlineUntil: offlineUntil))
    }

    /// The server's time now as the device can tell it: within a boot, the anchor plus the
    /// monotonic time since; after a reboot, the later of the anchor and the wall clock. The
    /// anchor then moves to now (a high-water mark kept in the file), so a reboot loses at most
    /// the time the device was off, never gains any.
    func trustedNow(file: inout File) -> Date {
        let uptime = clock.uptime()
        let anchored = Date(timeIntervalSince1970: TimeInterval(file.anchor.trustedDate) / 1000)
        let now: Date
        if file.anchor.bootId == clock.bootId(), uptime >= file.anchor.uptime {
            now = anchored.addingTimeInterval(uptime - file.anchor.uptime)
        } else {
            now = max(anchored, clock.wallNow())
        }
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
