"""What a person sees in a browser: ``quaternity serve`` (:mod:`.app`) and the pages' static files."""
