package kb

// Texts for the model. create_note's and update_note's instructions and
// add_knowledge_base's next_steps are the spec's, word for word.
const (
	nextStepsAddKnowledgeBase = "Knowledge base created. Please define folder constraints using add_knowledge_base_folder_constraint to specify machine-checkable metadata rules for notes under specific subfolders."

	instructionCreate = "Please verify the note against the knowledge base's organization_rules:\n\n" +
		"1. Check that the note content follows the organization guidelines\n" +
		"2. Ensure the note structure matches KB conventions\n\n" +
		"If any issues are found, call update_note with corrected content."

	instructionUpdate = "Please verify the update against the knowledge base's organization_rules:\n\n" +
		"1. Compare original and updated content to ensure no important information was lost\n" +
		"2. Check that the updated note follows the organization guidelines\n" +
		"3. Verify the note structure matches KB conventions\n\n" +
		"If any issues are found, call update_note again with corrected content."

	instructionAppend = "Please verify the note after the append against the knowledge base's organization_rules:\n\n" +
		"1. Check that the appended content fits the note and repeats nothing it already had\n" +
		"2. Check that the whole note follows the organization guidelines\n" +
		"3. Verify the note structure matches KB conventions\n\n" +
		"If any issues are found, call update_note with corrected content."

	instructionMove = "Please verify the note at its new path against the knowledge base's organization_rules:\n\n" +
		"1. Check that the new folder and file name suit the note under the organization guidelines\n" +
		"2. Verify the note structure matches the conventions of its new folder\n\n" +
		"If any issues are found, call update_note with corrected content, or move_note again."

	instructionValidatePassed = "The note passes its folder constraint. Please verify it against the knowledge base's organization_rules:\n\n" +
		"1. Check that the note content follows the organization guidelines\n" +
		"2. Ensure the note structure matches KB conventions\n\n" +
		"If any issues are found, call update_note with corrected content."

	instructionValidateFailed = "The note fails its folder constraint: machine_validation.issues lists each problem with the field, what was expected and what the note has. " +
		"Fix every issue, check the note against the knowledge base's organization_rules as well, and call update_note with the corrected content."
)
