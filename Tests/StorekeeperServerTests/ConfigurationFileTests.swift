import Foundation
import StorekeeperApps
import StorekeeperServer
import Testing

@Suite("Configuration files: JSON and YAML of the same shape")
struct ConfigurationFileTests {
    static let yaml = """
        # Storekeeper configuration in YAML
        port: 9090
        dataDirectory: data
        apps:
          - id: alpha
            bundleId: com.example.alpha
            appAppleId: 1234567890
            environments: [Sandbox, Production]
            trustedRoots: [certs/root.der]
            sharedSecret: "0123abcd"
            apiKeys:
              - { key: alpha-app-key-0123456789, role: app }
              - key: alpha-admin-key-0123456789
                role: admin
            products:
              - productId: pro.monthly
                type: autoRenewable
                subscriptionGroupIdentifier: pro
                entitlements: [pro]
        """

    static let json = """
        {"port": 9090, "dataDirectory": "data", "apps": [{"id": "alpha", "bundleId": "com.example.alpha", "appAppleId": 1234567890,
         "environments": ["Sandbox", "Production"], "trustedRoots": ["certs/root.der"], "sharedSecret": "0123abcd",
         "apiKeys": [{"key": "alpha-app-key-0123456789", "role": "app"}, {"key": "alpha-admin-key-0123456789", "role": "admin"}],
         "products": [{"productId": "pro.monthly", "type": "autoRenewable", "subscriptionGroupIdentifier": "pro", "entitlements": ["pro"]}]}]}
        """

    func write(_ text: String, named name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-conf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file
    }

    @Test("a .yaml and a .yml file load to the same configuration as the JSON file", arguments: ["config.yaml", "config.YML"])
    func yamlMatchesJSON(name: String) throws {
        let yamlFile = try write(Self.yaml, named: name)
        let jsonFile = try write(Self.json, named: "config.json")
        defer {
            try? FileManager.default.removeItem(at: yamlFile.deletingLastPathComponent())
            try? FileManager.default.removeItem(at: jsonFile.deletingLastPathComponent())
        }
        let fromYAML = try ServerConfiguration.load(file: yamlFile.path, environment: [:])
        let fromJSON = try ServerConfiguration.load(file: jsonFile.path, environment: [:])
        #expect(fromYAML.port == 9090)
        let app = try #require(fromYAML.apps.first)
        #expect(app.sharedSecret == "0123abcd")
        #expect(app.appAppleId == 1_234_567_890)
        #expect(app.apiKeys.map(\.role) == [.app, .admin])
        #expect(app.products.first?.subscriptionGroupIdentifier == "pro")
        #expect(app.trustedRoots == [yamlFile.deletingLastPathComponent().appendingPathComponent("certs/root.der").path])
        #expect(app.environments == fromJSON.apps.first?.environments)
        #expect(app.apiKeys == fromJSON.apps.first?.apiKeys)
        #expect(app.products.map(\.productId) == fromJSON.apps.first?.products.map(\.productId))
        let overridden = try ServerConfiguration.load(file: yamlFile.path, environment: ["STOREKEEPER_PORT": "7070"])
        #expect(overridden.port == 7070)
    }

    @Test("invalid YAML and YAML of the wrong shape are refused with a message that names the file, not its secrets")
    func invalidYAML() throws {
        for text in ["apps: [", "apps:\n  - id: alpha\n    sharedSecret: s3cr3t-value\n", "port: eighty"] {
            let file = try write(text, named: "bad.yaml")
            defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
            #expect {
                try ServerConfiguration.load(file: file.path, environment: [:])
            } throws: { error in
                let message = String(describing: error)
                return message.contains("bad.yaml") && !message.contains("s3cr3t-value")
            }
        }
    }

    @Test(
        "the inbox's burst pacing defaults to 20 ms of quiet on SQLite, none on PostgreSQL, within 2 s; can be set or turned off, and is refused out of range"
    )
    func inboxBurstPacing() throws {
        let base = try write(Self.json, named: "config.json")
        defer { try? FileManager.default.removeItem(at: base.deletingLastPathComponent()) }
        let defaults = try ServerConfiguration.load(file: base.path, environment: [:]).inbox
        #expect(defaults.burstQuietMilliseconds == nil && defaults.burstLimitMilliseconds == 2000)
        #expect(defaults.burstQuiet(backend: "sqlite") == .milliseconds(20) && defaults.burstQuiet(backend: "postgresql") == .zero)
        for (quiet, limit, accepted) in [
            (0, 0, true), (50, 5000, true), (1000, 60_000, true), (-1, 1000, false), (1001, 1000, false), (20, 60_001, false),
        ] {
            let inbox = #"{"burstQuietMilliseconds": \#(quiet), "burstLimitMilliseconds": \#(limit)}"#
            let text = Self.json.replacingOccurrences(of: #"{"port": 9090,"#, with: #"{"port": 9090, "inbox": \#(inbox),"#)
            let file = try write(text, named: "config.json")
            defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
            if accepted {
                let loaded = try ServerConfiguration.load(file: file.path, environment: [:]).inbox
                #expect(loaded.burstQuietMilliseconds == quiet && loaded.burstLimitMilliseconds == limit)
                #expect(loaded.burstQuiet(backend: "postgresql") == .milliseconds(quiet))
            } else {
                #expect(throws: (any Error).self) { try ServerConfiguration.load(file: file.path, environment: [:]) }
            }
        }
    }

    @Test("the inbox's gather time defaults to 4 ms, can be set or turned off, and is refused out of range")
    func inboxGather() throws {
        let base = try write(Self.json, named: "config.json")
        defer { try? FileManager.default.removeItem(at: base.deletingLastPathComponent()) }
        #expect(try ServerConfiguration.load(file: base.path, environment: [:]).inbox.gatherMilliseconds == 4)
        for (value, accepted) in [(0, true), (25, true), (1000, true), (-1, false), (1001, false)] {
            let text = Self.json.replacingOccurrences(of: #"{"port": 9090,"#, with: #"{"port": 9090, "inbox": {"gatherMilliseconds": \#(value)},"#)
            let file = try write(text, named: "config.json")
            defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
            if accepted {
                #expect(try ServerConfiguration.load(file: file.path, environment: [:]).inbox.gatherMilliseconds == value)
            } else {
                #expect(throws: (any Error).self) { try ServerConfiguration.load(file: file.path, environment: [:]) }
            }
        }
    }
}
