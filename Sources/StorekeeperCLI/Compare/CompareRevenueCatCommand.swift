import ArgumentParser
import Foundation
import StorekeeperApps
import StorekeeperServer
import StorekeeperStore

/// `storekeeper compare revenuecat`: reads a fresh RevenueCat export and lists every customer
/// whose active entitlements differ between RevenueCat and Storekeeper, and why.
struct CompareRevenueCatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revenuecat",
        abstract: "List the customers whose active entitlements differ between a RevenueCat export and Storekeeper.",
        discussion: """
            Reads the export (.csv or .csv.gz, as `import revenuecat` does) in one pass and compares, for each \
            app user id of its App Store rows, RevenueCat's active entitlements with the ones Storekeeper computes \
            from its ledger at the same instant. Exits 0 when none differ, 1 when some do.
            """
    )

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case json, text
    }

    @OptionGroup var options: ServeOptions

    @Option(help: "The app id (from the configuration) to compare.")
    var app: String

    @Option(help: "The RevenueCat export (.csv or .csv.gz).")
    var file: String

    @Option(help: "json (default) or text: a short table.")
    var format: OutputFormat = .json

    @Option(help: "The instant to compare at, ISO 8601 (default: now).")
    var at: String?

    func run() async throws {
        let instant: Date
        if let at {
            guard let parsed = RevenueCatExport.date(at) else { throw CLIFailure.usage("--at \(at) is not an ISO 8601 instant") }
            instant = parsed
        } else {
            instant = Date()
        }
        guard FileManager.default.isReadableFile(atPath: file) else { throw CLIFailure.usage("cannot read \(file)") }
        let configuration = try options.configuration()
        guard let appConfiguration = configuration.apps.first(where: { $0.id == app }) else {
            throw CLIFailure.usage("no app \(app) is configured")
        }
        let catalog = appConfiguration.catalog
        let (appId, path) = (app, file)
        let report: RevenueCatComparison.Report
        do {
            report = try await configuration.withStore(label: "storekeeper.compare") { store in
                try await RevenueCatComparison(appId: appId, catalog: catalog, store: store, instant: instant).run(path: path)
            }
        } catch let error as RevenueCatExport.Unreadable {
            throw CLIFailure.usage(error.description)
        }
        switch format {
        case .json:
            let encoder = JSONOutput.encoder()
            encoder.dateEncodingStrategy = .iso8601
            do {
                Console.out(try encoder.encode(report) + Data("\n".utf8))
            } catch {
                throw CLIFailure(exitCode: 1, message: "cannot encode the result: \(error)")
            }
        case .text:
            Console.out(Data(Self.table(report).utf8))
        }
        if report.differing > 0 { throw CLIFailure.invalidVerdict }
    }

    /// A short table: one line per difference.
    static func table(_ report: RevenueCatComparison.Report) -> String {
        var lines = ["\(report.customers) customers, \(report.differing) differ (at \(RevenueCatExport.format(report.at)) UTC)"]
        if report.differing > 0 {
            lines.append(
                [
                    "customer".padding(toLength: 28, withPad: " ", startingAt: 0), "entitlement".padding(toLength: 20, withPad: " ", startingAt: 0),
                    "reason",
                ].joined(separator: " "))
        }
        for customer in report.differences {
            for difference in customer.differences {
                lines.append(
                    [
                        String(customer.customerId.prefix(28)).padding(toLength: 28, withPad: " ", startingAt: 0),
                        String(difference.entitlement.prefix(20)).padding(toLength: 20, withPad: " ", startingAt: 0),
                        "\(difference.reason.rawValue): \(difference.message)",
                    ].joined(separator: " "))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
