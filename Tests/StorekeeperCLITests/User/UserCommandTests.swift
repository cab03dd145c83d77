import Foundation
import Testing

/// `storekeeper user add|list`: dashboard users in the app's database.
@Suite("storekeeper user")
struct UserCommandTests {
    @Test("add reads the password from standard input, updates an existing user, never prints a hash; bad input is a usage error")
    func addAndList() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-user-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("config.json")
        try Data(
            #"""
            {"apps": [{"id": "alpha", "bundleId": "com.example.alpha", "environments": ["Sandbox"],
              "apiKeys": [{"key": "alpha-app-key-0123456789", "role": "app"}]}]}
            """#.utf8
        ).write(to: config)
        let common = ["--config", config.path, "--data-dir", directory.appendingPathComponent("data").path]
        let added = try await StorekeeperProcess.run(
            ["user", "add"] + common + ["--email", "Ops@Example.com", "--role", "support", "--app", "alpha"], input: "a long passphrase\n")
        #expect(added.exitCode == 0, "\(added.standardError)")
        let json = try added.json()
        #expect(json["email"] as? String == "ops@example.com" && json["created"] as? Bool == true)
        #expect(json["apps"] as? [String] == ["alpha"] && json["role"] as? String == "support")

        let again = try await StorekeeperProcess.run(
            ["user", "add"] + common + ["--email", "ops@example.com", "--role", "admin"], input: "another passphrase\n")
        #expect(again.exitCode == 0, "\(again.standardError)")
        #expect(try again.json()["created"] as? Bool == false)

        let list = try await StorekeeperProcess.run(["user", "list"] + common)
        #expect(list.exitCode == 0, "\(list.standardError)")
        #expect(list.text.contains("\"role\":\"admin\"") && list.text.contains("\"apps\":[\"*\"]"))
        #expect(!list.text.contains("scrypt"))

        for (arguments, input) in [
            (["--email", "ops@example.com", "--role", "owner"], "a long passphrase\n"),
            (["--email", "not-an-email", "--role", "viewer"], "a long passphrase\n"),
            (["--email", "v@example.com", "--role", "viewer"], "short\n"),
            (["--email", "v@example.com", "--role", "viewer"], ""),
            (["--email", "v@example.com", "--role", "viewer", "--app", "beta"], "a long passphrase\n"),
        ] {
            let refused = try await StorekeeperProcess.run(["user", "add"] + common + arguments, input: input)
            #expect(refused.exitCode == 2, "\(arguments): \(refused.standardError)")
        }
    }
}
