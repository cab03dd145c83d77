import ArgumentParser
import Foundation

/// `storekeeper bench seed --subscriptions N [--data-dir DIR] [--database-url URL] [--seed S] [--measure]`
struct BenchSeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed",
        abstract: "Fill a database with simulated subscription histories, in bounded slices.",
        discussion: """
            Runs the App Store simulator for N customers who all subscribe (plus their one-time \
            purchases and family-shared copies), over D days ending at midnight UTC of the run's \
            day (or --end), in independent slices of --slice customers (each with a seed derived \
            from --seed and its number, its own customer numbers and transaction ids), and writes \
            each slice's truth as ledger rows before simulating the next, so memory stays bounded. \
            The rows are the bulk path of `bench analytics`: every transaction in its final form, \
            the renewal facts of each billing episode and each chain's current renewal info, and \
            the customers' links, written through the store's changesets (multi-row inserts) as \
            an import would, without signing each JWS, each chain's figures (the read side's \
            rows, computed from the chain's rows as the intake computes them) in the same \
            transaction, and an offerings document with a running experiment that one customer \
            in ten is enrolled in; at the end the figures are recorded as built, so a server \
            started on the database answers from them at once (--no-figures writes none: the \
            server then builds them at start). The SQLite database goes in --data-dir \
            (or the PostgreSQL database of --database-url), and with it seed-manifest.json: the \
            app, a fresh API key, chains to read and a sample of the simulator's truth, for \
            `storekeeper bench scale` and `storekeeper bench read --data-dir DIR`. Prints progress on standard error and one \
            JSON object; with --measure, then runs `bench scale` and prints its object too. \
            After every slice the seed saves its progress in seed-progress.json; a seed that was \
            stopped (killed, or its machine restarted) goes on from there with --resume and the \
            same --data-dir (and --database-url), with the parameters it began with.
            """
    )

    @Option(help: "How many subscribing customers (1 to 2000000).")
    var subscriptions: Int = 1_000_000

    @Option(help: "Where the SQLite database, the manifest and the server's files go (must not hold a seeded database).")
    var dataDir: String = "storekeeper-scale"

    @Option(help: "postgres://user:password@host:port/database; the SQLite database of --data-dir when absent.")
    var databaseURL: String?

    @Option(help: "The simulation's seed.")
    var seed: UInt64 = 1

    @Option(help: "How many simulated days (366 to 3650).")
    var days: Double = 730

    @Option(help: "The end of the simulated history (ISO 8601); midnight UTC today by default.")
    var end: String?

    @Option(help: "Customers simulated and written at a time (100 to 100000).")
    var slice: Int = 10_000

    @Flag(help: "Write no figures: a server started on the database builds them (as on a database from before the read side).")
    var noFigures = false

    @Flag(help: "Keep the figure read indexes while writing (as before the bulk path), rather than building them at the end.")
    var indexesAsWritten = false

    @Flag(help: "Go on with the stopped seed of --data-dir (its seed-progress.json), with the parameters it began with.")
    var resume = false

    @Option(help: .hidden)
    var heldRollupCells: Int = 1_000_000

    @Option(help: .hidden)
    var exitAfterWrites: Int?

    @Flag(help: "Measure the seeded database right away (as `storekeeper bench scale`).")
    var measure = false

    @OptionGroup var scale: ScaleOptions

    func run() async throws {
        guard (1...2_000_000).contains(subscriptions) else { throw CLIFailure.usage("--subscriptions must be between 1 and 2000000") }
        guard days >= 366, days <= 3_650 else { throw CLIFailure.usage("--days must be between 366 and 3650") }
        guard (100...100_000).contains(slice) else { throw CLIFailure.usage("--slice must be between 100 and 100000") }
        let databaseURL = try BenchDatabaseOptions.check(self.databaseURL)
        let endDate: Date
        if let end {
            guard let parsed = try? Date.ISO8601FormatStyle().parse(end) else { throw CLIFailure.usage("--end must be an ISO 8601 instant") }
            endDate = parsed
        } else {
            endDate = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
        }
        let directory = URL(fileURLWithPath: dataDir)
        var seeding = ScaleSeed(
            subscriptions: subscriptions, days: days, seed: seed, sliceSize: slice, end: endDate, databaseURL: databaseURL,
            directory: directory, writesFigures: !noFigures, defersIndexes: !indexesAsWritten, resume: resume, heldRollupCells: heldRollupCells,
            exitAfterWrites: exitAfterWrites, progress: { Console.err(Data(($0 + "\n").utf8)) })
        if resume {
            let saved: SeedProgress
            do {
                saved = try SeedProgress.read(from: directory.appendingPathComponent(SeedProgress.fileName))
            } catch {
                throw CLIFailure.usage("--resume: \(error)")
            }
            guard databaseURL == nil || databaseURL == saved.databaseURL else {
                throw CLIFailure.usage("--resume: the stopped seed wrote to another database than --database-url")
            }
            let parameters = saved.parameters
            seeding.databaseURL = saved.databaseURL
            (seeding.subscriptions, seeding.days, seeding.seed, seeding.sliceSize) = (
                parameters.subscriptions, parameters.days, parameters.seed, parameters.sliceSize
            )
            (seeding.end, seeding.writesFigures, seeding.defersIndexes) = (parameters.end, parameters.writesFigures, parameters.defersIndexes)
        }
        try await runningBenchmark {
            try JSONOutput.print(try await seeding.run())
            if measure { try await scale.measure(directory: directory) }
        }
    }
}
