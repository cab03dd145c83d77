import Foundation
import StorekeeperTestSupport
import Testing

/// The "done" as a newcomer runs it: `storekeeper simulator serve` and `storekeeper serve`
/// started separately, then `storekeeper device …` against them.
///
/// Timing-bound: the device's request timeout decides between a delivered purchase and one
/// kept for later, so it is far beyond a loaded machine's answer (a server that is down refuses
/// at once, so a long timeout costs nothing there), and waits for output are generous.
@Suite("storekeeper device against a local App Store and a server", .serialized, .timingBound, .tags(.slow), .skippedWhenFast)
struct DeviceCommandTests {
    /// A long-running `storekeeper` child whose output goes to a file.
    final class Background: @unchecked Sendable {
        // `@unchecked`: both set once in `init`.
        let process: ChildProcess
        let log: URL

        init(_ arguments: [String], log: URL) throws {
            self.log = log
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            process = try ChildProcess(StorekeeperProcess.executable.path, arguments, output: .file(log.path), errorToOutput: true)
        }

        var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

        /// Waits until the output holds `text` (or the process ended, or 180 s passed).
        func wait(for text: String) async -> Bool {
            for _ in 0..<1_800 {
                if output.contains(text) { return true }
                if !process.isRunning { return false }
                try? await Task.sleep(for: .milliseconds(100))
            }
            return false
        }

        /// ``stop()`` without blocking the cooperative pool.
        func stopped() async {
            await offThePool { self.stop() }
        }

        func stop() {
            guard process.isRunning else { return }
            process.terminate()
            let deadline = Date().addingTimeInterval(15)
            while process.isRunning, Date() < deadline { usleep(50_000) }
            process.kill()
            process.waitUntilExit()
        }
    }

    @Test(
        "buy through the SDK core, serve the signed cache offline until the window ends or the file is edited, retry a failed post, give up as a problem"
    )
    func lifecycle() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: StorekeeperProcess.executable.path), "build the storekeeper product first")
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ca = directory.appendingPathComponent("local-app-store").path
        let (simulatorPort, serverPort) = (LoopbackPort.free(), LoopbackPort.free())
        let simulator = try Background(
            [
                "simulator", "serve", "--port", "\(simulatorPort)", "--ca", ca,
                "--notification-url", "http://127.0.0.1:\(serverPort)/v1/apps/local/notifications",
            ], log: directory.appendingPathComponent("simulator.log"))
        defer { simulator.stop() }
        #expect(await simulator.wait(for: "Local App Store on"), "the simulator did not start: \(simulator.output)")
        let config = "\(ca)/storekeeper.json"
        func startServer(_ name: String) async throws -> Background {
            let server = try Background(
                ["serve", "--config", config, "--port", "\(serverPort)"], log: directory.appendingPathComponent("\(name).log"))
            #expect(await server.wait(for: "listening on"), "the server did not start: \(server.output)")
            return server
        }
        var server = try await startServer("server-1")
        defer { server.stop() }
        let identity = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(ca)/local-app-store.json"))) as? [String: Any])
        let appKey = try #require(identity["appKey"] as? String)
        func device(_ command: String, _ customer: String, _ extra: [String] = [], phone: String? = nil) async throws -> StorekeeperProcess.Output {
            try await StorekeeperProcess.run(
                [
                    "device", command, "--server", "http://127.0.0.1:\(serverPort)", "--api-key", appKey,
                    "--simulator", "http://127.0.0.1:\(simulatorPort)", "--customer", customer,
                    "--state-dir", directory.appendingPathComponent("devices/\(phone ?? customer)").path, "--timeout", "60",
                ] + extra, timeout: 300)
        }
        func entitlements(_ output: StorekeeperProcess.Output) throws -> (source: String?, products: [String]) {
            let info = try output.json()["customerInfo"] as? [String: Any]
            let products = (info?["entitlements"] as? [[String: Any]] ?? []).compactMap { $0["productId"] as? String }
            return (info?["source"] as? String, products)
        }

        // A purchase: delivered, and the printed customer info holds the entitlement.
        let bought = try await device("purchase", "alice", ["--product", "premium.monthly"])
        #expect(bought.exitCode == 0, "\(bought.text) \(bought.standardError)")
        #expect(try bought.json()["outcome"] as? String == "delivered")
        #expect(try entitlements(bought) == ("server", ["premium.monthly"]))
        // The app account token the server issued to alice (the purchase asked for it), kept on the phone.
        let issued = try #require(try await device("app-account-token", "alice").json()["appAccountToken"] as? String)
        #expect(UUID(uuidString: issued) != nil)
        // Bob's and carol's apps ask for theirs while the server is up, as an app does at sign-in:
        // their purchases below are made while it is down.
        for customer in ["bob", "carol"] {
            #expect(try await device("app-account-token", customer).json()["appAccountToken"] as? String != nil)
        }

        // The server stops: the cached, signed entitlement, and it says so; the kept token too.
        await server.stopped()
        #expect(try await device("app-account-token", "alice").json()["appAccountToken"] as? String == issued)
        let cached = try await device("customer-info", "alice")
        #expect(cached.exitCode == 0, "\(cached.standardError)")
        #expect(try entitlements(cached) == ("cache", ["premium.monthly"]))
        try await Task.sleep(for: .milliseconds(1100))
        let expired = try await device("customer-info", "alice", ["--offline-window", "1"])
        #expect(expired.exitCode == 1 && expired.standardError.contains("offline window ended"), "\(expired.standardError)")
        let cacheFile = directory.appendingPathComponent("devices/alice/customer-state.json")
        let text = try String(contentsOf: cacheFile, encoding: .utf8)
        try text.replacingOccurrences(of: "\"uptime\":", with: "\"uptime\":1").write(to: cacheFile, atomically: true, encoding: .utf8)
        let edited = try await device("customer-info", "alice")
        #expect(edited.exitCode == 1 && edited.standardError.contains("changed outside"), "\(edited.standardError)")

        // A purchase whose post fails: charged, not finished, kept; the next run delivers it.
        let failed = try await device("purchase", "bob", ["--product", "premium.yearly", "--attempts", "3"])
        #expect(failed.exitCode == 3, "\(failed.text) \(failed.standardError)")
        #expect(try failed.json()["outcome"] as? String == "charged_not_delivered")
        server = try await startServer("server-2")
        let retried = try await device("pending", "bob")
        #expect(retried.exitCode == 0)
        #expect((try retried.json()["pending"] as? [Any])?.isEmpty == true, "\(retried.text)")
        #expect(try entitlements(try await device("customer-info", "bob")) == ("server", ["premium.yearly"]))
        // The restarted server signs with the same key (kept in its database): the key alice
        // pinned from the first server still verifies.
        #expect(try entitlements(try await device("customer-info", "alice")) == ("server", ["premium.monthly"]))
        // A restore (a new phone, nothing kept): the App Store's current transactions are posted
        // again and the customer's information comes from the server.
        let restored = try await device("restore", "alice", phone: "alice-new-phone")
        #expect(restored.exitCode == 0, "\(restored.standardError)")
        #expect(try entitlements(restored) == ("server", ["premium.monthly"]))

        // Past the bound: given up on, and reported to the server once it is back.
        await server.stopped()
        #expect(try await device("purchase", "carol", ["--product", "premium.monthly", "--attempts", "2"]).exitCode == 3)
        let givenUp = try await device("pending", "carol", ["--attempts", "2"])
        let waiting = try #require((try givenUp.json()["pending"] as? [[String: Any]])?.first, "\(givenUp.text)")
        #expect(waiting["state"] as? String == "givenUp" && waiting["problemReported"] as? Bool == false)
        server = try await startServer("server-3")
        let reported = try await device("pending", "carol", ["--attempts", "2"])
        let problem = try #require((try reported.json()["pending"] as? [[String: Any]])?.first, "\(reported.text)")
        #expect(problem["problemReported"] as? Bool == true)
    }
}
