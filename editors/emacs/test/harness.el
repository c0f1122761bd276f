;;; harness.el --- what the Emacs suites share  -*- lexical-binding: t -*-
;;
;; Checks print "ok   - …" or "FAIL - …" on stdout and the suite ends with
;; "N passed, N failed". Files are compared byte for byte with the trees
;; make-workspace.sh saved. Configuration comes from lsp/README.md itself: the suites evaluate
;; the documented snippets, so the documentation is what is tested.

(require 'cl-lib)
(require 'subr-x)
(require 'package)

;; Debian's elpa-* packages (eglot on Emacs 28, lsp-mode, markdown-mode) are activated by
;; package.el from /usr/share/emacs/site-lisp/elpa; nothing is written to ~/.emacs.d.
;; (`emacs -Q' leaves `package-directory-list' empty; a user's Emacs starts with Debian's.)
(setq package-user-dir (expand-file-name "elpa" (getenv "HOME"))
      package-directory-list '("/usr/share/emacs/site-lisp/elpa"))
(package-initialize)

(defvar rw-passed 0)
(defvar rw-failed 0)

(defun rw-print (fmt &rest args)
  "Print one line on stdout (`message' goes to stderr in batch mode)."
  (princ (concat (apply #'format fmt args) "\n")))

(defun rw-check (name ok &optional detail)
  "Count a check NAME that passed when OK; DETAIL is printed on failure."
  (if ok
      (progn (cl-incf rw-passed) (rw-print "ok   - %s" name))
    (cl-incf rw-failed)
    (rw-print "FAIL - %s%s" name (if detail (format "\n       %S" detail) "")))
  ok)

(defun rw-summary ()
  (rw-print "%d passed, %d failed" rw-passed rw-failed))

(defmacro rw-section (name &rest body)
  "Run BODY; an error fails NAME and the suite goes on."
  (declare (indent 1))
  `(condition-case err
       (progn ,@body)
     (error (rw-check (format "%s: no error" ,name) nil err))))

(defun rw-env (name)
  (or (getenv name) (error "environment variable %s is not set" name)))

(defvar rw-ws (file-name-as-directory (rw-env "REWIND_TEST_WS")))
(defvar rw-expect (file-name-as-directory (rw-env "REWIND_TEST_EXPECT")))
(defvar rw-bin (rw-env "REWIND_TEST_BIN"))
(defvar rw-readme (rw-env "REWIND_TEST_README"))

(defun rw-bytes (file)
  "FILE's bytes as a unibyte string."
  (with-temp-buffer
    (set-buffer-multibyte nil)
    (insert-file-contents-literally file)
    (buffer-string)))

(defun rw-tree (dir)
  "Every file under DIR (symbolic links included, Emacs lock files too) as an alist
of (RELATIVE-PATH . BYTES-or-(link TARGET)), sorted."
  (let (out)
    (dolist (f (directory-files-recursively dir "" nil nil nil))
      (let ((rel (file-relative-name f dir))
            (link (file-symlink-p f)))
        (push (cons rel (if link (list 'link link) (rw-bytes f))) out)))
    (sort out (lambda (a b) (string< (car a) (car b))))))

(defun rw-tree-diff (want-dir got-dir)
  "How GOT-DIR differs from WANT-DIR, or nil when they hold the same files and bytes."
  (let ((want (rw-tree want-dir)) (got (rw-tree got-dir)) diffs)
    (dolist (w want)
      (let ((g (assoc (car w) got)))
        (cond ((not g) (push (format "missing %s" (car w)) diffs))
              ((not (equal (cdr w) (cdr g))) (push (format "differs %s: %S" (car w) (cdr g)) diffs)))))
    (dolist (g got)
      (unless (assoc (car g) want) (push (format "extra %s" (car g)) diffs)))
    (nreverse diffs)))

(defun rw-wait (pred &optional seconds)
  "Process output and timers until PRED is non-nil or SECONDS (default 10) pass; PRED's value."
  (let ((end (+ (float-time) (or seconds 10))) v)
    (while (and (not (setq v (funcall pred))) (< (float-time) end))
      (accept-process-output nil 0.05))
    v))

(defun rw-settle (seconds)
  "Let SECONDS pass while processes and timers run."
  (rw-wait (lambda () nil) seconds))

(defun rw-get (obj &rest keys)
  "Follow KEYS (strings) into OBJ, a JSON object read as a plist, hash table or alist."
  (dolist (k keys obj)
    (setq obj (cond ((hash-table-p obj) (gethash k obj))
                    ((and (listp obj) (keywordp (car-safe obj))) (plist-get obj (intern (concat ":" k))))
                    ((listp obj) (cdr (assoc k obj)))
                    (t nil)))))

(defun rw-seq (v)
  "V (a vector or list, nil for JSON null) as a list."
  (append v nil))

(defun rw-readme-snippet (marker)
  "The elisp code block of lsp/README.md that contains MARKER."
  (with-temp-buffer
    (insert-file-contents rw-readme)
    (goto-char (point-min))
    (let (found)
      (while (and (not found) (re-search-forward "^```elisp\n" nil t))
        (let* ((beg (point))
               (end (progn (re-search-forward "^```$") (match-beginning 0)))
               (code (buffer-substring-no-properties beg end)))
          (when (string-match-p (regexp-quote marker) code) (setq found code))))
      (or found (error "lsp/README.md has no elisp block with %s" marker)))))

(defun rw-eval-snippet (marker)
  "Evaluate the documented snippet that contains MARKER."
  (with-temp-buffer
    (insert (rw-readme-snippet marker))
    (goto-char (point-min))
    (condition-case nil
        (while t (eval (read (current-buffer)) t))
      (end-of-file nil))))

(defun rw-cli-in (root &rest args)
  "Run the rewind-lsp command line on folder ROOT; its output, or an error."
  (with-temp-buffer
    (let ((code (apply #'call-process rw-bin nil t nil "--root" (directory-file-name root) args)))
      (unless (eq code 0) (error "rewind-lsp %S: exit %s: %s" args code (buffer-string)))
      (buffer-string))))

(defun rw-cli (&rest args)
  "Run the rewind-lsp command line on the workspace; its output, or an error."
  (apply #'rw-cli-in rw-ws args))

(defun rw-check-turns (name want)
  "Check that the journal lists WANT turns: rewinds, undos, the editor's echoes and its lock
files (.#name while a buffer is modified) add none."
  (let ((turns (append (gethash "turns" (json-parse-string (rw-cli "--json" "log"))) nil)))
    (rw-check name (= (length turns) want) (rw-cli "log"))))

;;; Steps: a second folder whose one turn is two Edit calls of an agent, reported over LSP
;;; (rewind.turnStart, rewind.toolCall pre and post around each edit, rewind.turnEnd) as an
;;; agent driving the editor's server would. Call 1 upper-cases line 1 of f.txt, call 2 line 3.

(defconst rw-steps-start "a\nb\nc\n" "f.txt before the turn.")
(defconst rw-steps-end "A\nb\nC\n" "f.txt when the turn ended.")
(defconst rw-steps-reverted "a\nb\nC\n" "f.txt with step 1 reverted alone: line 3 keeps step 2's edit.")

(defvar rw-steps-ws nil "The steps folder (rw-steps-make-workspace).")

(defun rw-write-bytes (file bytes)
  "Write BYTES to FILE as another program would: no lock file, a visiting buffer untouched."
  (let ((create-lockfiles nil) (coding-system-for-write 'no-conversion))
    (write-region bytes nil file nil 'silent)))

(defun rw-steps-make-workspace ()
  "Make the steps folder with f.txt (a, b, c) and return it. It is written before a server
watches it, so the file is no change of the folder's."
  (setq rw-steps-ws (file-name-as-directory (make-temp-file "rewind-steps-" t)))
  (rw-write-bytes (expand-file-name "f.txt" rw-steps-ws) rw-steps-start)
  rw-steps-ws)

(defun rw-steps-record (command buf)
  "Record the steps turn through COMMAND (a function of a server command's name and argument
that runs it through the editor's server), BUF visiting f.txt: each call's edit is written to
disk by the agent and the buffer reverted from it, as an editor shows an agent's edits.
Return the steps the two post phases were recorded as."
  (let ((file (buffer-file-name buf)) steps)
    (funcall command "rewind.turnStart" '(:prompt "shout a and c" :session "S"))
    (dolist (call `(("call-1" "A\nb\nc\n") ("call-2" ,rw-steps-end)))
      (funcall command "rewind.toolCall"
               `(:session "S" :tool "Edit" :toolUse ,(car call) :phase "pre" :paths ["f.txt"]))
      (rw-write-bytes file (cadr call))
      (with-current-buffer buf (revert-buffer t t t))
      (push (rw-get (funcall command "rewind.toolCall"
                             `(:session "S" :tool "Edit" :toolUse ,(car call) :phase "post"
                                        :paths ["f.txt"] :detail "f.txt"))
                    "step")
            steps))
    (funcall command "rewind.turnEnd" '(:session "S"))
    (nreverse steps)))

(defun rw-steps-hover-p (text)
  "Whether hover TEXT names step 1 of turn 1 (the file name markdown-escaped or not)."
  (and (stringp text)
       (string-match-p "Agent turn 1, step 1: Edit f\\\\?\\.txt" text)
       (not (string-match-p "step 2" text))))

(defun rw-buffer-bytes-p (buf bytes)
  "Whether BUF's text is BYTES."
  (with-current-buffer buf (equal (encode-coding-string (buffer-string) 'utf-8-unix) bytes)))

(defun rw-steps-check-tree (name bytes)
  "Check that the steps folder holds f.txt alone, and it is BYTES."
  (let ((want (list (cons "f.txt" bytes))))
    (rw-check name (rw-wait (lambda () (equal (rw-tree rw-steps-ws) want)) 10) (rw-tree rw-steps-ws))))

(defun rw-steps-check-journal ()
  "Check the steps folder's journal: one turn, its steps 1.1 and 1.2, and the latest rewind,
the revert of step 1.1, applied and undone."
  (let* ((log (json-parse-string (rw-cli-in rw-steps-ws "--json" "log")))
         (turns (append (gethash "turns" log) nil))
         (steps (mapcar (lambda (s) (gethash "target" s)) (append (gethash "steps" (car turns)) nil)))
         (r (car (last (append (gethash "rewinds" log) nil)))))
    (rw-check "the journal lists the one turn with steps 1.1 and 1.2 (the revert, the undo, the echoes and saves added no turn)"
              (and (= (length turns) 1) (equal steps '("1.1" "1.2"))) (rw-cli-in rw-steps-ws "log"))
    (rw-check "the journal records the revert of step 1.1, applied, then undone"
              (and r (equal (gethash "target" r) "1.1") (equal (gethash "mode" r) "revert")
                   (eq (gethash "applied" r) t) (eq (gethash "undone" r) t))
              r)))

(defvar rw-warnings nil "Warnings and unknown-message complaints seen during the suite.")

(defun rw-record-warning (&rest args)
  (push (apply #'format-message (if (stringp (car args)) args (list "%S" args))) rw-warnings))

(defvar rw-questions nil "The questions Emacs asked, newest first (each answered yes, as a person would).")

(defun rw-answer-yes (prompt &rest _)
  (push (string-trim prompt) rw-questions)
  t)

;; In batch mode a question would read stdin; answer it as a person saving their work would.
(advice-add 'yes-or-no-p :override #'rw-answer-yes)
(advice-add 'y-or-n-p :override #'rw-answer-yes)
;; "FILE changed on disk; really edit the buffer?": y (go on; saving then writes the buffer).
(advice-add 'ask-user-about-supersession-threat :override
            (lambda (fn) (rw-answer-yes (format "%s changed on disk; really edit the buffer?" (file-name-nondirectory fn)))))

(provide 'harness)
;;; harness.el ends here
