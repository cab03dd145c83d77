import Foundation
import StorekeeperTestSupport

/// A tiny HTTP server on 127.0.0.1 (Python's `http.server` in a child process) that echoes
/// each request as JSON, to test the live transport without leaving the machine.
///
/// `/big` answers 2 MB; `/status/NNN` answers with that status. The process is stopped by
/// ``stop()``, and stops by itself after fifteen minutes in any case (not sooner: a loaded
/// machine may starve the test for minutes before it connects).
final class LoopbackEchoServer: @unchecked Sendable {
    // Safety: `process` and `port` are set in `init` and never mutated afterwards.
    let port: Int
    private let process: ChildProcess

    static let script = """
        import http.server, json, os, signal, sys, threading
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        threading.Timer(900, lambda: os._exit(0)).start()
        class Echo(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'
            def answer(self):
                length = int(self.headers.get('Content-Length') or 0)
                body = self.rfile.read(length)
                status = 200
                if self.path.startswith('/big'):
                    payload = b'x' * 2000000
                else:
                    if self.path.startswith('/status/'):
                        status = int(self.path.split('/')[2])
                    payload = json.dumps({'method': self.command, 'path': self.path,
                        'headers': {k.lower(): v for k, v in self.headers.items()},
                        'body': body.decode('utf-8', 'replace')}).encode()
                self.send_response(status)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Retry-After', '5')
                self.send_header('Content-Length', str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            do_GET = do_POST = do_PUT = do_DELETE = answer
            def log_message(self, *args):
                pass
        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Echo)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts the server with the first Python 3 found; `nil` when there is none.
    init?() throws {
        let candidates = [
            ProcessInfo.processInfo.environment["STOREKEEPER_PYTHON"], "/tmp/asvenv/bin/python", "/usr/bin/python3", "/usr/local/bin/python3",
        ]
        .compactMap { $0 }
        guard let python = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
        let process = try ChildProcess(python, ["-c", Self.script], output: .pipe)
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = process.readOutputChunk()
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw Unavailable(description: "the echo server did not report its port")
        }
        self.process = process
        self.port = port
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Kills the server (SIGKILL: the test runner may leave SIGTERM ignored in children).
    func stop() {
        process.kill()
        process.waitUntilExit()
    }
}
