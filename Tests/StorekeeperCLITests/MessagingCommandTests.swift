import Foundation
import StorekeeperTestSupport
import Testing

/// `storekeeper messaging …` as an operator runs it: `storekeeper simulator serve` started on its
/// own, then the commands with the configuration it writes (the app `local`, whose
/// `appStoreServerAPI.baseURL` points at the simulator).
@Suite("storekeeper messaging against a local App Store", .serialized, .timingBound, .tags(.slow), .skippedWhenFast)
struct MessagingCommandTests {
    /// A PNG header Apple's rules accept: 3840 × 1080, truecolour, no transparency.
    static let png: Data = {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        func be(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
        func chunk(_ name: String, _ data: [UInt8]) { bytes += be(data.count) + Array(name.utf8) + data + [0, 0, 0, 0] }
        chunk("IHDR", be(3840) + be(1080) + [8, 2, 0, 0, 0])
        chunk("IDAT", [0])
        chunk("IEND", [])
        return Data(bytes)
    }()

    @Test("images, messages, defaults and the real-time URL end to end, with Apple's refusals named and usage errors apart")
    func endToEnd() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: StorekeeperProcess.executable.path), "build the storekeeper product first")
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ca = directory.appendingPathComponent("local-app-store").path
        let port = LoopbackPort.free()
        let simulator = try DeviceCommandTests.Background(
            ["simulator", "serve", "--port", "\(port)", "--ca", ca], log: directory.appendingPathComponent("simulator.log"))
        defer { simulator.stop() }
        #expect(await simulator.wait(for: "Local App Store on"), "the simulator did not start: \(simulator.output)")
        let config = "\(ca)/storekeeper.json"
        func messaging(_ arguments: [String], config: String = config, app: String = "local") async throws -> StorekeeperProcess.Output {
            let output = try await StorekeeperProcess.run(["messaging"] + arguments + ["--config", config, "--app", app], timeout: 120)
            return output
        }
        func succeeds(_ arguments: [String]) async throws -> [String: Any] {
            let output = try await messaging(arguments)
            #expect(output.exitCode == 0, "\(arguments): \(output.standardError)")
            return try output.json()
        }
        func refused(_ arguments: [String], _ name: String, _ code: Int) async throws {
            let output = try await messaging(arguments)
            #expect(output.exitCode == 1, "\(arguments): \(output.text)")
            #expect(output.standardError.contains("\(name) (\(code)"), "\(arguments): \(output.standardError)")
            #expect(output.standardError.split(separator: "\n").count == 1)
        }
        func states(_ list: [String: Any], _ key: String, _ state: String) -> [String] {
            (list[key] as? [[String: Any]] ?? []).compactMap { $0[state] as? String }
        }

        // Images: uploaded pending, approved by the simulator on the next list.
        let file = directory.appendingPathComponent("banner.png")
        try Self.png.write(to: file)
        let image = try #require(try await succeeds(["images", "upload", "--file", file.path])["imageIdentifier"] as? String)
        #expect(states(try await succeeds(["images", "list"]), "imageIdentifiers", "imageState") == ["PENDING"])
        #expect(states(try await succeeds(["images", "list"]), "imageIdentifiers", "imageState") == ["APPROVED"])
        try await refused(["images", "upload", "--file", file.path, "--id", image], "imageAlreadyExists", 4_090_000)
        let text = directory.appendingPathComponent("notes.txt")
        try Data("not a png".utf8).write(to: text)
        try await refused(["images", "upload", "--file", text.path], "invalidImage", 4_000_161)

        // Messages: with the image; Apple's text limits named.
        let message = try #require(
            try await succeeds([
                "messages", "upload", "--header", "Stay with us", "--body", "Three months at half price", "--image-id", image, "--alt-text",
                "A banner",
            ])[
                "messageIdentifier"] as? String)
        try await refused(["messages", "upload", "--header", String(repeating: "h", count: 67), "--body", "b"], "headerTooLong", 4_000_162)
        try await refused(["messages", "upload", "--header", "h", "--body", String(repeating: "b", count: 145)], "bodyTooLong", 4_000_163)
        try await refused(
            ["default", "set", "--product", "premium.monthly", "--locale", "en-US", "--message-id", message], "messageNotApproved", 4_030_017)
        #expect(states(try await succeeds(["messages", "list"]), "messageIdentifiers", "messageState") == ["PENDING"])
        #expect(states(try await succeeds(["messages", "list"]), "messageIdentifiers", "messageState") == ["APPROVED"])

        // Defaults per product and locale.
        _ = try await succeeds(["default", "set", "--product", "premium.monthly", "--locale", "en-US", "--message-id", message])
        let fetched = try await succeeds(["default", "get", "--product", "premium.monthly", "--locale", "en-US"])
        #expect(fetched["messageIdentifier"] as? String == message)
        try await refused(
            ["default", "set", "--product", "premium.monthly", "--locale", "english", "--message-id", message], "invalidLocale", 4_000_164)
        try await refused(
            ["default", "set", "--product", "premium.monthly", "--locale", "fr", "--message-id", UUID().uuidString], "messageNotFound", 4_040_015)
        try await refused(["images", "delete", "--id", image], "imageInUse", 4_030_019)

        // The real-time URL.
        try await refused(["realtime-url", "get"], "realtimeUrlNotFound", 4_040_021)
        try await refused(["realtime-url", "set", "--url", "http://example.com/retention"], "badRequestRealtimeUrl", 4_000_215)
        _ = try await succeeds(["realtime-url", "set", "--url", "https://example.com/retention"])
        #expect(try await succeeds(["realtime-url", "get"])["realtimeURL"] as? String == "https://example.com/retention")
        // The performance test (its passing run is proven in the simulator's own tests: this
        // simulator has no subscription to test with).
        try await refused(["performance-test", "start", "--original-transaction-id", "2000000000"], "originalTransactionIdNotFound", 4_040_005)
        try await refused(["performance-test", "result", "--request-id", UUID().uuidString], "performanceTestRunNotFound", 4_040_018)
        _ = try await succeeds(["realtime-url", "delete"])

        // Removing everything, in the order Apple allows.
        _ = try await succeeds(["default", "delete", "--product", "premium.monthly", "--locale", "en-US"])
        try await refused(["default", "get", "--product", "premium.monthly", "--locale", "en-US"], "defaultMessageNotFound", 4_040_020)
        _ = try await succeeds(["messages", "delete", "--id", message])
        _ = try await succeeds(["images", "delete", "--id", image])
        #expect(states(try await succeeds(["images", "list"]), "imageIdentifiers", "imageState").isEmpty)

        // Usage errors exit 2 without calling Apple.
        let unknownApp = try await messaging(["images", "list"], app: "nope")
        #expect(unknownApp.exitCode == 2 && unknownApp.standardError.contains("no app nope"), "\(unknownApp.standardError)")
        let badId = try await messaging(["images", "delete", "--id", "not-a-uuid"])
        #expect(badId.exitCode == 2 && badId.standardError.contains("--id must be a UUID"), "\(badId.standardError)")
        let lonelyAlt = try await messaging(["messages", "upload", "--header", "h", "--body", "b", "--alt-text", "x"])
        #expect(lonelyAlt.exitCode == 2, "\(lonelyAlt.standardError)")

        // An app without credentials, and a simulator that is not there.
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: config))) as? [String: Any])
        var apps = try #require(document["apps"] as? [[String: Any]])
        var api = try #require(apps[0]["appStoreServerAPI"] as? [String: Any])
        api["baseURL"] = "http://127.0.0.1:\(LoopbackPort.free())"
        api["environment"] = "Production"
        apps[0]["appStoreServerAPI"] = api
        var bare = apps[0]
        bare["id"] = "bare"
        bare["appStoreServerAPI"] = nil
        bare["apiKeys"] = nil
        document["apps"] = [apps[0], bare]
        let elsewhere = directory.appendingPathComponent("elsewhere.json")
        try JSONSerialization.data(withJSONObject: document).write(to: elsewhere)
        let unreachable = try await messaging(["messages", "list", "--timeout", "2", "--attempts", "2"], config: elsewhere.path)
        #expect(unreachable.exitCode == 3 && unreachable.standardError.contains("could not be reached"), "\(unreachable.standardError)")
        let noCredentials = try await messaging(["messages", "list"], config: elsewhere.path, app: "bare")
        #expect(noCredentials.exitCode == 2 && noCredentials.standardError.contains("no appStoreServerAPI"), "\(noCredentials.standardError)")
    }
}
