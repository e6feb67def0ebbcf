package llm

// compatFields is Compat without methods, so the helpers below can encode
// and decode it without recursing into MarshalJSON/UnmarshalJSON.
type compatFields Compat

// MarshalJSON writes the modelled fields plus any unmodelled compat options
// kept in Extra, so catalog and models.json options that only some clients
// understand survive a round trip.
func (c Compat) MarshalJSON() ([]byte, error) {
	f := compatFields(c)
	return marshalKnown(&f, c.Extra)
}

// UnmarshalJSON keeps unknown members in Extra.
func (c *Compat) UnmarshalJSON(data []byte) error {
	var f compatFields
	extra, err := unmarshalKnown(data, &f)
	if err != nil {
		return err
	}
	*c = Compat(f)
	c.Extra = extra
	return nil
}
