import ArgumentParser

/// The kinds of signed data Apple produces, as named on the command line.
enum SignedDataKind: String, CaseIterable, ExpressibleByArgument {
    case transaction
    case renewal
    case notification
    case appTransaction = "app-transaction"
}
