import Crypto
import Foundation
import Testing

@testable import StorekeeperKit

@Suite("StorekeeperKit: offline access from the signed cache")
struct OfflineAccessTests {
    let start = Date(timeIntervalSince1970: 1_790_000_000)

    func make(_ server: FakeServer, clock: TestDeviceClock, directory: URL, window: TimeInterval = 10 * 86_400) throws -> Storekeeper {
        try Storekeeper(
            configuration: StorekeeperConfiguration(
                serverURL: URL(string: "https://sk.example")!, appId: "app", apiKey: "sk_app", appUserId: "alice", offlineWindow: window,
                stateDirectory: directory),
            store: FakeStore(), transport: server, clock: clock.clock)
    }

    @Test("online answers come from the server; offline, the signed cache serves them for the window, on the server's clock")
    func window() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestDeviceClock(wall: start)
        let server = FakeServer(now: { clock.clock.wallNow() })
        server.state.withLock { $0.stateEntitlements = [TestStateSigner.premium(expires: start.addingTimeInterval(2 * 86_400))] }
        let storekeeper = try make(server, clock: clock, directory: directory)
        let online = try await storekeeper.customerInfo()
        #expect(online.source == .server && online.isEntitled(to: "premium"))

        server.state.withLock { $0.online = false }
        clock.pass(5 * 86_400)
        let offline = try await storekeeper.customerInfo()
        #expect(offline.source == .cache)
        #expect(offline.isEntitled(to: "premium"), "a renewing subscription keeps access offline past its period's end, inside the window")
        #expect(offline.offlineUntil == start.addingTimeInterval(10 * 86_400))

        // Setting the device's date back changes nothing: time is the monotonic clock's.
        clock.setWall(start)
        clock.pass(5 * 86_400 + 1)
        await #expect(throws: StorekeeperError.self) { try await storekeeper.customerInfo() }
        // A fresh launch on the same boot reads the same file and agrees.
        let relaunched = try make(server, clock: clock, directory: directory)
        await #expect(throws: StorekeeperError.self) { try await relaunched.customerInfo() }
    }

    @Test("after a reboot the wall clock is only a floor: setting it back never extends access")
    func reboot() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestDeviceClock(wall: start)
        let server = FakeServer(now: { clock.clock.wallNow() })
        server.state.withLock { $0.stateEntitlements = [TestStateSigner.premium(expires: start.addingTimeInterval(30 * 86_400))] }
        let storekeeper = try make(server, clock: clock, directory: directory)
        _ = try await storekeeper.customerInfo()
        server.state.withLock { $0.online = false }
        clock.pass(4 * 86_400)
        #expect(try await storekeeper.customerInfo().source == .cache)  // anchors the trusted time at day 4
        clock.reboot(after: 3 * 86_400)
        clock.setWall(start.addingTimeInterval(-100 * 86_400))  // the user sets the date back
        #expect(try await storekeeper.customerInfo().source == .cache)
        clock.pass(6 * 86_400 + 1)  // day 4 (the floor) + 6 days: past the window
        await #expect(throws: StorekeeperError.self) { try await storekeeper.customerInfo() }
    }

    @Test("an edited cache file, another key's signature or another customer's state is ignored")
    func tampering() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestDeviceClock(wall: start)
        let server = FakeServer(now: { clock.clock.wallNow() })
        server.state.withLock { $0.stateEntitlements = [TestStateSigner.premium(expires: start.addingTimeInterval(30 * 86_400))] }
        let storekeeper = try make(server, clock: clock, directory: directory)
        _ = try await storekeeper.customerInfo()
        server.state.withLock { $0.online = false }
        #expect(try await storekeeper.cachedCustomerInfo().source == .cache)

        let file = directory.appendingPathComponent("customer-state.json")
        let original = try Data(contentsOf: file)
        var object = try #require(try JSONSerialization.jsonObject(with: original) as? [String: Any])
        var anchor = try #require(object["anchor"] as? [String: Any])
        anchor["uptime"] = 999_999_999.0
        object["anchor"] = anchor
        try JSONSerialization.data(withJSONObject: object).write(to: file)
        do {
            _ = try await storekeeper.customerInfo()
            Issue.record("an edited cache was served")
        } catch let error as StorekeeperError {
            #expect(error.code == .noCustomerInfo && error.message.contains("changed outside"))
        }

        // A state signed by another key (with a recomputed MAC) does not verify with the pinned key.
        try original.write(to: file)
        let forger = TestStateSigner()
        let cache = OfflineCache(directory: directory, clock: clock.clock)
        try cache.save(
            try SignedCustomerState.verified(
                try forger.sign(customerId: "alice", at: start), key: forger.key.publicKey, appId: "app", customerId: "alice"))
        await #expect(throws: StorekeeperError.self) { try await storekeeper.customerInfo() }

        // Another customer's state is not this customer's.
        try original.write(to: file)
        let bob = try Storekeeper(
            configuration: StorekeeperConfiguration(
                serverURL: URL(string: "https://sk.example")!, appId: "app", apiKey: "sk_app", appUserId: "bob", stateDirectory: directory),
            store: FakeStore(), transport: server, clock: clock.clock)
        await #expect(throws: StorekeeperError.self) { try await bob.customerInfo() }
    }

    /// Rewrites the cache's anchor as someone holding `device.key` can: the new anchor, and a
    /// MAC computed with the key beside the file.
    func moveAnchor(in directory: URL, to anchor: OfflineCache.Anchor) throws {
        let url = directory.appendingPathComponent("customer-state.json")
        var file = try JSONDecoder().decode(OfflineCache.File.self, from: Data(contentsOf: url))
        let keyText = try String(contentsOf: directory.appendingPathComponent("device.key"), encoding: .utf8)
        let key = SymmetricKey(data: try #require(Data(base64Encoded: keyText)))
        file.anchor = anchor
        file.mac = nil
        file.mac = Data(HMAC<SHA256>.authenticationCode(for: try OfflineCache.encoder.encode(file), using: key)).base64EncodedString()
        try OfflineCache.encoder.encode(file).write(to: url)
    }

    @Test("an anchor moved back and re-MACed with device.key serves nothing past the offlineUntil the server signed")
    func anchorMovedBack() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestDeviceClock(wall: start)
        let server = FakeServer(now: { clock.clock.wallNow() })
        server.state.withLock {
            $0.stateEntitlements = [TestStateSigner.premium(expires: start.addingTimeInterval(30 * 86_400))]
            $0.signedOfflineWindow = 3 * 86_400
        }
        let storekeeper = try make(server, clock: clock, directory: directory)
        _ = try await storekeeper.customerInfo()
        server.state.withLock { $0.online = false }
        clock.pass(2 * 86_400)
        let offline = try await storekeeper.customerInfo()
        #expect(offline.source == .cache && offline.offlineUntil == start.addingTimeInterval(3 * 86_400), "the signed bound, not the app's 10 days")

        clock.pass(86_400 + 1)
        await #expect(throws: StorekeeperError.self) { try await storekeeper.customerInfo() }
        // The attacker anchors the cache at the signing instant, on this boot and after a "reboot".
        let signing = Int64(start.timeIntervalSince1970 * 1000)
        let uptime = clock.clock.uptime()
        for anchor in [
            OfflineCache.Anchor(bootId: clock.clock.bootId(), uptime: uptime, trustedDate: signing),
            OfflineCache.Anchor(bootId: "another-boot", uptime: 0, trustedDate: signing),
        ] {
            try moveAnchor(in: directory, to: anchor)
            do {
                let served = try await storekeeper.customerInfo()
                Issue.record("a moved anchor served the cache past the signed window: \(served)")
            } catch let error as StorekeeperError {
                #expect(error.code == .noCustomerInfo && error.message.contains("offline window ended"), "\(error)")
            }
        }
    }

    @Test("the app's shorter window still holds under a longer signed one; a state without offlineUntil is bound by its date plus the app's window")
    func windowBounds() async throws {
        for signedWindow in [30 * 86_400, nil] as [TimeInterval?] {
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let clock = TestDeviceClock(wall: start)
            let server = FakeServer(now: { clock.clock.wallNow() })
            server.state.withLock { $0.signedOfflineWindow = signedWindow }
            let storekeeper = try make(server, clock: clock, directory: directory, window: 5 * 86_400)
            _ = try await storekeeper.customerInfo()
            server.state.withLock { $0.online = false }
            clock.pass(4 * 86_400)
            #expect(try await storekeeper.customerInfo().offlineUntil == start.addingTimeInterval(5 * 86_400))
            clock.pass(86_400 + 1)
            // Moving the anchor back to the signing changes nothing either.
            try moveAnchor(
                in: directory,
                to: OfflineCache.Anchor(
                    bootId: clock.clock.bootId(), uptime: clock.clock.uptime(), trustedDate: Int64(start.timeIntervalSince1970 * 1000)))
            await #expect(throws: StorekeeperError.self, "signed window \(String(describing: signedWindow))") {
                try await storekeeper.customerInfo()
            }
        }
    }

    @Test("a state about another app or customer, or with a bad signature, is refused from the server too")
    func verification() throws {
        let signer = TestStateSigner()
        let jws = try signer.sign(customerId: "alice", at: start)
        #expect(throws: StorekeeperError.self) {
            try SignedCustomerState.verified(jws, key: signer.key.publicKey, appId: "other", customerId: "alice")
        }
        #expect(throws: StorekeeperError.self) { try SignedCustomerState.verified(jws, key: signer.key.publicKey, appId: "app", customerId: "bob") }
        #expect(throws: StorekeeperError.self) {
            try SignedCustomerState.verified(jws, key: TestStateSigner().key.publicKey, appId: "app", customerId: "alice")
        }
        #expect(try SignedCustomerState.verified(jws, key: signer.key.publicKey, appId: "app", customerId: "alice").claims.customerId == "alice")
    }
}
