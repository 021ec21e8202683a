extension Array {
    /// Grows the array with `filler` until `index` is inside it, for tables indexed by a socket's
    /// descriptor: the system hands descriptors out lowest first, so the table stays as long as
    /// the highest descriptor in use. `index` must not be negative.
    mutating func extend(toCover index: Int, with filler: Element) {
        if index >= count { self += repeatElement(filler, count: index + 1 - count) }
    }
}
