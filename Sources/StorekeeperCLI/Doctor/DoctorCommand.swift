import AppStoreServerAPI
import ArgumentParser
import Foundation
import StorekeeperApps

/// `storekeeper doctor`: checks a configuration, Apple's view of its apps and, with `--server`,
/// the running server, and prints findings with what to do (docs/doctor.md).
///
/// Exit codes: 0 no error found, 1 at least one error, 2 a usage error or a configuration that
/// cannot be read.
public struct DoctorCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check a configuration, its keys, Apple's view of its apps and the running server.",
        discussion: """
            Sends each app with App Store Server API credentials a test notification through Apple \
            (or the simulator its baseURL names) and waits for Apple's delivery result. Every finding \
            has a severity, a stable code and what to do; docs/doctor.md lists the codes.
            """
    )

    @OptionGroup var options: ServeOptions

    @Option(help: "The running server's URL (e.g. https://subs.example.com): checks it received the test notification.")
    var server: String?

    @Option(help: "text or json.")
    var format: String = "text"

    @Option(help: "How many seconds to wait for Apple's delivery result of the test notification.")
    var wait: Int = 60

    @Option(help: "The TLS certificate chain (PEM) the server is started with, when not in the configuration.")
    var tlsCertificate: String?

    @Option(help: "The TLS private key (PEM) the server is started with, when not in the configuration.")
    var tlsKey: String?

    /// Seconds added to the local clock when it is compared with Apple's and the server's: the
    /// tests' way to fake a skewed clock (API tokens are still signed at the real time).
    @Option(help: .hidden)
    var clockOffset: Double = 0

    public init() {}

    public func run() async throws {
        guard ["text", "json"].contains(format) else { throw CLIFailure.usage("--format must be text or json") }
        guard (1...3600).contains(wait) else { throw CLIFailure.usage("--wait must be 1 to 3600 seconds") }
        var serverURL: URL?
        if let server {
            guard let url = URL(string: server), url.scheme?.hasPrefix("http") == true, url.host != nil else {
                throw CLIFailure.usage("--server must be an http(s) URL")
            }
            serverURL = url
        }
        var (configuration, problem) = try loadConfiguration()
        switch (tlsCertificate, tlsKey) {
        case (let certificate?, let key?): configuration.tls = TLSFiles(certificate: certificate, key: key)
        case (nil, nil): break
        default: throw CLIFailure.usage("--tls-certificate and --tls-key go together")
        }
        let offset = clockOffset
        let doctor = Doctor(
            configuration: configuration, configurationProblem: problem, configurationFile: options.configurationFile(), server: serverURL,
            deliveryWait: .seconds(wait), pollInterval: .seconds(2), maximumSkew: 60, now: { Date().addingTimeInterval(offset) },
            transport: DateRecordingTransport(
                base: AsyncHTTPClientTransport(configuration: .init(timeout: .seconds(10))), dates: AnswerDates()))
        let report = DoctorReport(findings: await doctor.run())
        if format == "json" {
            try JSONOutput.print(report, pretty: true)
        } else {
            Console.out(Data(report.text.utf8))
        }
        if report.hasErrors { throw CLIFailure.invalidVerdict }
    }

    /// The configuration as `serve` reads it, and what `validate()` refuses in it: a refused
    /// configuration is still checked (the refusal is a finding); an unreadable one is a usage
    /// error.
    func loadConfiguration(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(CLIFailure) -> (ServerConfiguration, String?) {
        do {
            return (try options.configuration(environment: environment), nil)
        } catch {
            guard let file = options.configurationFile(environment: environment), let data = FileManager.default.contents(atPath: file),
                var configuration = try? ServerConfiguration.decode(data, yaml: file.hasSuffix(".yaml") || file.hasSuffix(".yml"))
            else { throw error }
            // As `ServerConfiguration.load` does: trusted roots relative to the file's folder.
            let base = URL(fileURLWithPath: file).deletingLastPathComponent()
            for index in configuration.apps.indices {
                configuration.apps[index].trustedRoots = configuration.apps[index].trustedRoots.map {
                    $0.hasPrefix("/") ? $0 : base.appendingPathComponent($0).path
                }
            }
            try? configuration.applyEnvironment(environment)
            if let dataDir = options.dataDir { configuration.dataDirectory = dataDir }
            if let databaseURL = options.databaseURL { configuration.databaseURL = databaseURL }
            return (configuration, error.message)
        }
    }
}
