package cusf

// What the tests of package cusf_test see of the schema evaluator.

// SchemaError is a leaf error of the evaluator.
type SchemaError = schemaError

// DecodeLine decodes a line as Validate does.
var DecodeLine = decodeLine

// CompileSchema compiles a schema document with the evaluator.
func CompileSchema(data []byte) error {
	_, err := compileSchema(data)
	return err
}

// SchemaErrors validates doc, a line decoded by DecodeLine, against
// Schema with the evaluator.
func SchemaErrors(doc any) ([]SchemaError, error) {
	s, err := lineSchema()
	if err != nil {
		return nil, err
	}
	return s.validate(doc), nil
}
