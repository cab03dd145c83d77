import AppStoreTestSigning
import Foundation
import StorekeeperTestSupport
import Testing

/// `storekeeper doctor` against `storekeeper simulator serve` and `storekeeper serve` on
/// loopback: the configuration the simulator writes passes, and each broken copy of it gives its
/// finding (code, severity, what to do) and exit code.
///
/// Timing-bound only as far as Apple's delivery result must come within `--wait` (60 s, where
/// the simulator takes well under one).
@Suite("storekeeper doctor against the App Store simulator and a server", .serialized, .timingBound, .tags(.slow), .skippedWhenFast)
struct DoctorCommandTests {
    /// The simulator, the server it notifies, and the configuration it wrote (the key moved to a
    /// `.p8` file of mode 0600, as an operator keeps it).
    struct Setup {
        var directory: URL
        var simulatorPort: Int
        var serverPort: Int
        var configuration: [String: Any]
        var keyFile: URL
        var appKey: String
        var background: [DoctorBackground]

        var server: String { "http://127.0.0.1:\(serverPort)" }

        func stop() { for process in background.reversed() { process.stop() } }

        /// Runs doctor on `configuration` written as `name`, against the server unless `server` is nil.
        func doctor(_ name: String, _ configuration: [String: Any], server: String?? = .none, extra: [String] = []) async throws -> DoctorRun {
            let path = try DoctorConfiguration.write(configuration, named: name, in: directory)
            let target = server ?? self.server
            return try await DoctorRun.run(["--config", path, "--wait", "60"] + (target.map { ["--server", $0] } ?? []) + extra)
        }
    }

    /// Starts the simulator (notifying `notificationPort`, or the server) and, unless
    /// `startsServer` is false, the server.
    static func start(notificationPort: Int? = nil, startsServer: Bool = true) async throws -> Setup {
        try #require(FileManager.default.isExecutableFile(atPath: StorekeeperProcess.executable.path), "build the storekeeper product first")
        let directory = try makeTemporaryDirectory()
        let ca = directory.appendingPathComponent("local-app-store")
        let (simulatorPort, serverPort) = (LoopbackPort.free(), LoopbackPort.free())
        let simulator = try DoctorBackground(
            [
                "simulator", "serve", "--port", "\(simulatorPort)", "--ca", ca.path,
                "--notification-url", "http://127.0.0.1:\(notificationPort ?? serverPort)/v1/apps/local/notifications",
            ], log: directory.appendingPathComponent("simulator.log"))
        var setup = Setup(
            directory: directory, simulatorPort: simulatorPort, serverPort: serverPort, configuration: [:],
            keyFile: directory.appendingPathComponent("AuthKey.p8"), appKey: "", background: [simulator])
        #expect(await simulator.wait(for: "Local App Store on"), "the simulator did not start: \(simulator.output)")
        let written = ca.appendingPathComponent("storekeeper.json")
        if startsServer {
            let server = try DoctorBackground(
                ["serve", "--config", written.path, "--port", "\(serverPort)"], log: directory.appendingPathComponent("server.log"))
            setup.background.append(server)
            #expect(await server.wait(for: "listening on"), "the server did not start: \(server.output)")
        }
        let identity = try DoctorConfiguration.read(ca.appendingPathComponent("local-app-store.json"))
        setup.appKey = try #require(identity["appKey"] as? String)
        try FileManager.default.copyItem(at: ca.appendingPathComponent("api-key.pem"), to: setup.keyFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: setup.keyFile.path)
        let keyPath = setup.keyFile.path
        setup.configuration = DoctorConfiguration.editingAPI(try DoctorConfiguration.read(written)) { api in
            api["privateKey"] = nil
            api["privateKeyPath"] = keyPath
        }
        return setup
    }

    @Test("a correct configuration passes; each broken copy gives its finding, what to do, and exit 1 for errors")
    func findings() async throws {
        let setup = try await Self.start()
        defer {
            setup.stop()
            try? FileManager.default.removeItem(at: setup.directory)
        }
        // A purchase, so the server knows a transaction whose product Apple can be asked about.
        let bought = try await StorekeeperProcess.run(
            [
                "device", "purchase", "--server", setup.server, "--api-key", setup.appKey, "--simulator", "http://127.0.0.1:\(setup.simulatorPort)",
                "--customer", "alice", "--product", "premium.monthly", "--state-dir", setup.directory.appendingPathComponent("alice").path,
                "--timeout", "60",
            ], timeout: 300)
        #expect(bought.exitCode == 0, "\(bought.text) \(bought.standardError)")
        let base = setup.configuration

        let correct = try await setup.doctor("correct", base)
        #expect(correct.exitCode == 0 && correct.codes("error").isEmpty, "\(correct)")
        for code in ["key_valid", "api_key_accepted", "notification_delivered", "identifiers_match", "server_received_test_notification"] {
            #expect(correct.has(code, "ok"), "\(code): \(correct)")
        }
        #expect(correct.codes("warning").isEmpty, "\(correct)")
        #expect(correct.findings("product_unknown").isEmpty && correct.has("products_known", "ok"), "\(correct)")

        // The API key: another key id, another .p8, another issuer, another bundle id: Apple's 401.
        // Keys of a chain made here: a P-256 leaf key (another .p8) and a P-384 root key.
        let keys = try TestCertificateAuthority.generate(notBefore: Date(), notAfter: Date().addingTimeInterval(86_400))
        let otherKey = setup.directory.appendingPathComponent("other.p8")
        try Data(keys.leafKey.pemRepresentation.utf8).write(to: otherKey)
        let refused: [(String, [String: Any])] = [
            ("wrong-key-id", DoctorConfiguration.editingAPI(base) { $0["keyId"] = "WRONGKEY42" }),
            ("other-p8", DoctorConfiguration.editingAPI(base) { $0["privateKeyPath"] = otherKey.path }),
            ("wrong-issuer", DoctorConfiguration.editingAPI(base) { $0["issuerId"] = "00000000-0000-0000-0000-000000000000" }),
            ("wrong-bundle", DoctorConfiguration.editingApp(base) { $0["bundleId"] = "com.example.other" }),
        ]
        for (name, configuration) in refused {
            let run = try await setup.doctor(name, configuration, server: .some(nil))
            #expect(run.exitCode == 1 && run.has("api_key_rejected", "error"), "\(name): \(run)")
            #expect(run.has("apple_checks_skipped", "info"), "\(name): what was not checked is said: \(run)")
        }
        let wrongKeyId = try await setup.doctor("wrong-key-id-text", refused[0].1, server: .some(nil))
        let refusal = wrongKeyId.findings("api_key_rejected").first?["message"] as? String
        #expect(refusal?.contains("does not match key id WRONGKEY42") == true, "\(wrongKeyId)")

        // The key file: unreadable (a folder: the tests run as root, whom modes do not stop),
        // not a key, a key of another curve, missing.
        let folder = setup.directory.appendingPathComponent("key-folder.p8")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let notAKey = setup.directory.appendingPathComponent("not-a-key.p8")
        try Data("just some text\n".utf8).write(to: notAKey)
        let p384 = setup.directory.appendingPathComponent("p384.p8")
        try Data(keys.rootKey.pemRepresentation.utf8).write(to: p384)
        let broken: [(String, String, String)] = [
            ("unreadable", folder.path, "key_file_unreadable"), ("not-a-key", notAKey.path, "key_not_a_key"),
            ("wrong-curve", p384.path, "key_wrong_curve"), ("missing", setup.directory.appendingPathComponent("none.p8").path, "key_file_missing"),
        ]
        for (name, path, code) in broken {
            let run = try await setup.doctor(name, DoctorConfiguration.editingAPI(base) { $0["privateKeyPath"] = path }, server: .some(nil))
            #expect(run.exitCode == 1 && run.has(code, "error"), "\(name): \(run)")
            #expect(run.findings("api_key_accepted").isEmpty, "\(name): no call to Apple without a key: \(run)")
        }

        // What Apple's signed test notification says against the configuration.
        let appleId = try await setup.doctor("wrong-apple-id", DoctorConfiguration.editingApp(base) { $0["appAppleId"] = 1 })
        #expect(appleId.exitCode == 1 && appleId.has("app_apple_id_mismatch", "error"), "\(appleId)")

        // A product Apple reports that the catalog lacks: a warning (the server refuses it at intake).
        let catalog = DoctorConfiguration.editingApp(base) { app in
            app["products"] = (app["products"] as? [[String: Any]] ?? []).filter { $0["productId"] as? String != "premium.monthly" }
        }
        let unknown = try await setup.doctor("unknown-product", catalog)
        #expect(unknown.exitCode == 0 && unknown.has("product_unknown", "warning"), "\(unknown)")
        #expect((unknown.findings("product_unknown").first?["message"] as? String)?.contains("premium.monthly") == true)

        // The local clock ten minutes ahead of the simulator's and the server's answers.
        let skewed = try await setup.doctor("skew", base, extra: ["--clock-offset", "600"])
        #expect(skewed.exitCode == 0 && skewed.findings("clock_skew").count == 2 && skewed.has("clock_skew", "warning"), "\(skewed)")

        // A key file other users can read: the chmod to run.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: setup.keyFile.path)
        let open = try await setup.doctor("open-key", base, server: .some(nil))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: setup.keyFile.path)
        #expect(open.exitCode == 0 && open.has("file_readable_by_others", "warning"), "\(open)")
        #expect((open.findings("file_readable_by_others").first?["todo"] as? String) == "Run `chmod 600 \(setup.keyFile.path)`.")

        // Two apps with one bundle id and environment.
        var twins = base
        if var second = (base["apps"] as? [[String: Any]])?.first {
            second["id"] = "twin"
            second["apiKeys"] = []
            second["appStoreServerAPI"] = nil
            twins["apps"] = (base["apps"] as? [[String: Any]] ?? []) + [second]
        }
        let twinRun = try await setup.doctor("twins", twins, server: .some(nil))
        #expect(twinRun.exitCode == 1 && twinRun.has("duplicate_bundle_id", "error"), "\(twinRun)")

        // A running server that is not the notification URL's: same configuration, its own data.
        let otherPort = LoopbackPort.free()
        let otherServer = try DoctorBackground(
            [
                "serve", "--config", try DoctorConfiguration.write(base, named: "other-server", in: setup.directory), "--port", "\(otherPort)",
                "--data-dir", setup.directory.appendingPathComponent("other-data").path,
            ], log: setup.directory.appendingPathComponent("other-server.log"))
        defer { otherServer.stop() }
        #expect(await otherServer.wait(for: "listening on"), "the other server did not start: \(otherServer.output)")
        let elsewhere = try await setup.doctor("elsewhere", base, server: "http://127.0.0.1:\(otherPort)")
        #expect(elsewhere.exitCode == 1 && elsewhere.has("notification_delivered_elsewhere", "error"), "\(elsewhere)")
        #expect(elsewhere.has("notification_delivered", "ok"), "Apple did deliver it: \(elsewhere)")
    }

    @Test("a notification URL where nothing listens: Apple's failed attempt, typed, with what to do; a server that is down")
    func unreachableNotificationURL() async throws {
        let refusing = LoopbackPort.Refusing()
        let setup = try await Self.start(notificationPort: refusing.port, startsServer: false)
        defer {
            setup.stop()
            try? FileManager.default.removeItem(at: setup.directory)
        }
        let run = try await setup.doctor("nowhere", setup.configuration, server: .some(nil))
        let failed = run.codes("error").filter { $0.hasPrefix("notification_") }
        #expect(run.exitCode == 1 && failed.count == 1, "\(run)")
        #expect(run.findings("notification_delivered").isEmpty)
        #expect(failed.allSatisfy { run.has($0, "error") }, "\(run)")
        let down = try await setup.doctor("server-down", setup.configuration, server: "http://127.0.0.1:\(refusing.port)")
        #expect(down.exitCode == 1 && down.codes("error").contains { $0.hasPrefix("notification_") }, "\(down)")
        #expect(down.has("server_unreachable", "error"), "\(down)")
    }

    @Test("usage errors and an unreadable configuration exit 2")
    func usage() async throws {
        let missing = try await StorekeeperProcess.run(["doctor", "--config", "/nonexistent/storekeeper.json"])
        #expect(missing.exitCode == 2, "\(missing.standardError)")
        let format = try await StorekeeperProcess.run(["doctor", "--format", "xml"])
        #expect(format.exitCode == 2)
    }
}
