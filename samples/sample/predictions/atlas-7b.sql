SELECT count(*) FROM books
SELECT title FROM books WHERE published_year < 1900
SELECT name FROM authors WHERE death_year IS NULL
SELECT avg(pages) FROM books
SELECT name FROM members WHERE email = NULL
SELECT genre FROM books ORDER BY genre
SELECT genre, count(*) FROM books GROUP BY genre
SELECT T1.title, T2.name FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id WHERE T1.pages > 500
SELECT title FROM books WHERE title LIKE '%The%'
SELECT title FROM books WHERE author_id IN (SELECT author_id FROM authors WHERE nationality = 'British')
SELECT DISTINCT T1.name FROM members AS T1 JOIN loans AS T2 ON T1.member_id = T2.member_id JOIN books AS T3 ON T2.book_id = T3.book_id WHERE T3.title = 'Beloved' OR T3.title = 'Nineteen Eighty-Four'
SELECT genre FROM books GROUP BY genre HAVING count(*) > 5
SELECT T1.name FROM members AS T1 JOIN loans AS T2 ON T1.member_id = T2.member_id GROUP BY T1.member_id ORDER BY count(*) DESC LIMIT 1
SELECT title FROM books ORDER BY pages DESC LIMIT 3
SELECT sum(fine) FROM loans
SELECT death_year FROM authors WHERE name = 'Jane Austen'
SELECT sum(price * copies * 1.1) FROM books WHERE genre = 'science fiction'
SELECT count(*) / (SELECT count(*) FROM loans) FROM loans WHERE return_date IS NULL
SELECT title FROM books WHERE genre = 'fantasy' OR pages < 200
SELECT name FROM members WHERE member_id NOT IN (SELECT member_id FROM loans)
SELECT name FROM authors WHERE author_id NOT IN (SELECT author_id FROM books)
SELECT loan_id FROM loans WHERE return_date IS NULL
SELECT avg(return_date - loan_date) FROM loans WHERE return_date IS NOT NULL
SELECT T2.name, count(*) FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id GROUP BY T1.author_id HAVING count(*) >= 3
SELECT name FROM members WHERE joined_date LIKE '2023%'
SELECT count(*) FROM books WHERE published_year > 1950
SELECT title FROM books ORDER BY published_year ASC LIMIT 1
SELECT nationality FROM authors GROUP BY nationality ORDER BY count(*) DESC LIMIT 1
SELECT count(*) FROM loans WHERE loan_date LIKE '2023%' AND return_date > due_date
SELECT strftime('%Y', loan_date), count(*) FROM loans GROUP BY strftime('%Y', loan_date)
SELECT T1.membership_type, sum(T2.fine) FROM members AS T1 JOIN loans AS T2 ON T1.member_id = T2.member_id GROUP BY T1.membership_type
SELECT DISTINCT T3.title FROM loans AS T2 JOIN books AS T3 ON T2.book_id = T3.book_id JOIN authors AS T4 ON T3.author_id = T4.author_id WHERE T4.name = 'Toni Morrison'
SELECT T1.title FROM books AS T1 JOIN loans AS T2 ON T1.book_id = T2.book_id GROUP BY T2.book_id ORDER BY count(*) DESC LIMIT 1
SELECT T2.name FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id GROUP BY T2.author_id HAVING count(T1.genre) > 1
SELECT title FROM books WHERE pages > (SELECT avg(pages) FROM books
SELECT avg(price / pages) FROM books WHERE author_id = 12

SELECT count(*) FROM loans AS T1, loans AS T2, loans AS T3 WHERE T1.member_id = T2.member_id AND T1.book_id = T2.book_id AND T1.loan_date > T2.loan_date
DELETE FROM books WHERE book_id NOT IN (SELECT book_id FROM loans)
SELECT flight_number FROM flights WHERE flight_number LIKE 'LH%'
SELECT count(*) FROM airports
SELECT name FROM airports WHERE country = 'Germany'
SELECT flight_number FROM flights WHERE origin = 'LHR'
SELECT model FROM aircraft WHERE seats > 200 ORDER BY seats DESC
SELECT flight_number FROM flights WHERE aircraft_id IN (SELECT aircraft_id FROM aircraft WHERE manufacturer = 'Airbus')
SELECT distance_km / duration_min FROM flights WHERE flight_number = 'BA117'
SELECT (duration_min + 45) / 60.0 FROM flights WHERE flight_number = 'LH400'
SELECT flight_number FROM flights WHERE aircraft_id IS NULL
SELECT T1.flight_number FROM flights AS T1 JOIN airports AS T2 ON T1.destination = T2.code WHERE T2.country = 'Spain'
SELECT name FROM airports WHERE name LIKE '%International%'
SELECT origin, count(*) FROM flights GROUP BY origin HAVING count(*) >= 3
SELECT DISTINCT origin FROM flights WHERE origin NOT IN (SELECT destination FROM flights)
SELECT T2.name FROM flights AS T1 JOIN airports AS T2 ON T1.destination = T2.code ORDER BY T1.distance_km DESC LIMIT 1
SELECT manufacturer, count(*), sum(seats) FROM aircraft GROUP BY manufacturer
SELECT max(seats) - min(seats) FROM aircraft
SELECT name FROM airports WHERE elevation_ft > 1000
SELECT flight_number FROM flights WHERE NOT status = 'cancelled' AND price_eur < 180
SELECT origin, destination, min(price_eur) FROM flights GROUP BY origin, destination
SELECT count(*) / count(DISTINCT origin) FROM flights
SELECT T1.origin FROM flights AS T1 JOIN aircraft AS T2 ON T1.aircraft_id = T2.aircraft_id WHERE T2.manufacturer = 'Airbus' UNION SELECT T1.origin FROM flights AS T1 JOIN aircraft AS T2 ON T1.aircraft_id = T2.aircraft_id WHERE T2.manufacturer = 'Boeing'
SELECT price_eur * 1.15 FROM flights WHERE flight_number = 'AF22'
SELECT T2.country, sum(T1.distance_km) FROM flights AS T1 JOIN airports AS T2 ON T1.origin = T2.code WHERE T1.status != 'cancelled' GROUP BY T2.country
SELECT flight_number FROM flights WHERE distance_km > (SELECT avg(distance_km) FROM flights WHERE origin = 'FRA')
SELECT departure + 2 FROM flights WHERE flight_number = 'IB6251'
SELECT flight_number FROM flights WHERE origin = 'CDG' AND status IN ('scheduled', 'delayed')
SELECT T2.model FROM flights AS T1 JOIN aircraft AS T2 ON T1.aircraft_id = T2.aircraft_id WHERE T1.status = 'landed' GROUP BY T1.aircraft_id ORDER BY count(*) DESC LIMIT 1
SELECT count(*) FROM flights
