/// A client's connection limits, split over its drivers so that their sum is the client's limit.
///
/// Each driver has its own libcurl multi handle, and libcurl enforces a multi handle's limits only. A client
/// with a per-host limit of 6 on two drivers gives each driver 3: together they can never open a seventh
/// connection to a host. A limit below the number of drivers lowers the number of drivers, since a driver
/// with a share of none could take no call (libcurl reads a limit of 0 as "no limit").
struct ConnectionShares: Equatable, Sendable {
    /// The connections this driver may keep open to one host; 0 for no limit.
    var perHost: Int
    /// The connections this driver may keep open over all hosts; 0 for no limit.
    var total: Int

    /// One share per driver to run: at most `drivers` (at least one), fewer when a limit is lower.
    static func split(drivers: Int, perHost: Int, total: Int) -> [ConnectionShares] {
        let count = [drivers, perHost > 0 ? perHost : .max, total > 0 ? total : .max].min().map { max(1, $0) } ?? 1
        return (0..<count).map { index in
            ConnectionShares(
                perHost: share(of: perHost, driver: index, of: count), total: share(of: total, driver: index, of: count)
            )
        }
    }

    /// Driver `index`'s part of `limit` over `count` drivers: the remainder goes to the first ones.
    private static func share(of limit: Int, driver index: Int, of count: Int) -> Int {
        guard limit > 0 else { return 0 }
        return limit / count + (index < limit % count ? 1 : 0)
    }
}
