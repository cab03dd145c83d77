import Foundation
import StorekeeperTestSupport
import Testing

@testable import StorekeeperCLI

@Suite("storekeeper demo --revenuecat-webhook", .heavyLoad, .tags(.slow), .skippedWhenFast)
struct DemoRevenueCatWebhookTests {
    /// A receiver outside the demo: Python's HTTP server writing each POST's Authorization
    /// header and body, one JSON line each, to `log`.
    static let receiver = """
        import http.server, json, os, sys, time
        port, log, stop = int(sys.argv[1]), sys.argv[2], sys.argv[3]
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with open(log, "a") as out:
                    out.write(json.dumps({"path": self.path, "authorization": self.headers.get("Authorization"),
                                          "body": body.decode()}) + "\\n")
                self.send_response(200)
                self.end_headers()
            def log_message(self, *arguments):
                pass
        server = http.server.HTTPServer(("127.0.0.1", port), Handler)
        server.timeout = 0.2
        # Ends by itself: when the test leaves the stop file or removes its folder, or after
        # 20 minutes at most.
        deadline = time.time() + 1200
        while not os.path.exists(stop) and os.path.isdir(os.path.dirname(stop)) and time.time() < deadline:
            server.handle_request()
        """

    @Test("a URL of one's own gets the demo's events in RevenueCat's documented format while the demo runs, each id once")
    func ownReceiverGetsRevenueCatEvents() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-demo-rc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("received.jsonl")
        let port = LoopbackPort.free()
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let stop = directory.appendingPathComponent("stop")
        python.arguments = ["python3", "-c", Self.receiver, "\(port)", log.path, stop.path]
        python.standardInput = FileHandle.nullDevice
        python.standardOutput = FileHandle.nullDevice
        python.standardError = FileHandle.nullDevice
        try python.run()
        defer {
            _ = FileManager.default.createFile(atPath: stop.path, contents: Data())
            python.terminate()
        }
        let output = try await StorekeeperProcess.run(
            [
                "demo", "--check", "--customers", "25", "--days", "60", "--seed", "11", "--step-hours", "6", "--quiet",
                "--revenuecat-webhook", "http://127.0.0.1:\(port)/rc",
            ], timeout: 600)
        #expect(output.exitCode == 0, "\(output.text)\n\(output.standardError)")
        #expect(output.text.contains("revenuecat-format webhooks matched"), "\(output.text)")
        let lines = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n") ?? []
        #expect(!lines.isEmpty, "no RevenueCat-format delivery reached the receiver")
        var ids = Set<String>()
        for line in lines {
            let entry = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(entry["path"] as? String == "/rc")
            #expect(entry["authorization"] as? String == DemoWorld.revenueCatAuthorization)
            let body = Data(try #require(entry["body"] as? String).utf8)
            switch DemoRevenueCatCheck.read(body) {
            case .success(let received): #expect(ids.insert(received.id).inserted, "\(received.id) arrived twice")
            case .failure(let problem): Issue.record("\(problem)")
            }
        }
    }
}
